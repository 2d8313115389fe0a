// Package steer delivers follow-ups into a run in progress
// (docs/steering.md): while the agent of one harness works on one scope,
// a later comment that would itself have started (or coalesced into) a
// run of that harness on that scope is written to the agent's mailbox
// instead of waiting for the pending run.
//
// It owns the vocabulary of steering: the harness limits (Limits), the
// envelope the agent reads (Message, one JSON object per line of
// $FULLSEND_STEER_FILE), the acknowledgment the agent writes (its ids,
// one per line of $FULLSEND_STEER_ACK_FILE: ReadAcks), the order rule
// that decides which follow-ups a pending run may give up (Prefix), the
// marker of a consumed follow-up (Marker) and the session that discovers,
// offers and records them (Session). Discovery and records are the
// platforms' (githubsteer, gitlabsteer, jirasteer, localsteer); the
// decision is the caller's (the core, exactly as on the dispatch path).
//
// A follow-up is delivered only when the agent acknowledged it and the
// run's agent then exited 0; only then is it recorded where the pending
// run (or, on Jira, the next poller) sees it, and that record is what
// makes the pending run exit without its agent. Every crash before the
// record leaves the follow-up pending.
package steer
