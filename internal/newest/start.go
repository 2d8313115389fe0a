package newest

import "time"

// Attempt is what a run about to start its agent knows of itself beyond
// what the platform lists (Yields).
type Attempt struct {
	// Since is when ours was queued, on the platform's clock: its
	// creation for a first attempt. A newer change's run the platform
	// cancelled at or after it was dropped for ours (GitHub's concurrency
	// group cancels the pending run when another is queued), and ours'
	// dispatcher re-runs it (Settle). Zero: the platform cancels no run
	// itself (GitLab), or ours is a re-run.
	Since time.Time
	// Retry: ours is a later attempt of its own run (a person's re-run, or
	// Settle's): a finished run of its key is an earlier attempt, not a
	// duplicate.
	Retry bool
}

// Yields is the rule a run applies when its job holds its scope (the
// platform runs a scope's runs one at a time: GitHub's concurrency group,
// GitLab's resource group) and is about to start its agent, so that no
// run starts an agent its dispatchers' Settle would have cancelled, or
// that a newer change's run makes redundant. ours is running, whatever
// state it is listed in; runs are its scope's runs (ours may be among
// them). It returns the run ours yields to (the newest change's, when
// several), and ok; ours then exits
// without its agent:
//
//   - a live run of ours' change that comes first (sameFirst): of one
//     change the first started runs (on GitHub: one that finished
//     started before ours; a waiting one waits behind ours, and its
//     dispatcher or its own start yields to ours), or with Seq (GitLab,
//     which keeps every waiter and hands the scope to them in any order)
//     the first created, whatever started;
//   - a live run that Supersedes ours (a newer change; when either
//     carries no change, one created after ours), in any state: a waiting
//     one runs after ours and covers ours' change;
//   - with a.Since, a newer change's run cancelled since then that no
//     live run covers: the platform dropped it for ours, and ours'
//     dispatcher re-runs it (or, once that dispatcher is gone, a backstop
//     does: Displaced).
//
// It is the rule Settle applies to a dispatcher's run, seen from the run.
func Yields(ours Run, runs []Run, a Attempt) (Run, bool) {
	me := ours
	me.State = Started
	c, isChange := Change(ours.Key)
	earlier := !a.Retry && isChange // a finished run of ours' key is a duplicate, not an earlier attempt
	var best Run
	found := false
	for _, r := range runs {
		if r.ID == ours.ID || !r.live() {
			continue
		}
		same := r.Key == ours.Key && ours.Key != "" // "": a key not read
		if same && sameFirst(r, me, earlier) || !same && Supersedes(r, me) {
			if !found || Supersedes(r, best) {
				best, found = r, true
			}
		}
	}
	if found || !isChange || a.Since.IsZero() {
		return best, found
	}
	return dropped(c, without(runs, ours.ID), a.Since)
}

// sameFirst reports whether r, a live run of the key of me (running),
// comes first of the two; a finished r counts only when earlier (a
// duplicate, not an earlier attempt). With Seq on both (GitLab), by
// creation: a later run that holds the scope while an earlier one waits
// yields to it, and the earlier one, at its start, does not yield to the
// later one that finished without its agent. Without (GitHub), r comes
// first when it finished (it started before me: the scope's runs start
// one at a time) or is running and was created first.
func sameFirst(r, me Run, earlier bool) bool {
	if r.State == Finished && !earlier {
		return false
	}
	if r.Seq != 0 && me.Seq != 0 {
		return r.Seq < me.Seq
	}
	return r.State == Finished || r.State == Started && first(r, me) < 0
}
