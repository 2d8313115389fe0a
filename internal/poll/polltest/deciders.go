package polltest

import (
	"strconv"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// PerComment is a poll.Decider that runs, for every comment, a harness of
// its own named Prefix and the comment's id: each comment is its own
// scope, so none is coalesced into another or superseded, and each must
// end with exactly one live run. Other changes match nothing. Forge is
// the configuration's forge (the scope key's subject system).
type PerComment struct{ Prefix, Forge string }

// Harness is the harness of comment id.
func (d PerComment) Harness(id int64) string { return d.Prefix + strconv.FormatInt(id, 10) }

// Decide implements poll.Decider.
func (d PerComment) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	c := ev.Transition.Comment
	if c == nil {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	return runOf(d.Prefix+c.ID, ev, d.Forge)
}

// Admit implements poll.Decider: every run.
func (PerComment) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }

// Refund implements poll.Decider: nothing to give back.
func (PerComment) Refund([]plan.Run) {}

// DecidesEntities implements poll.Decider: no entity-source harness.
func (PerComment) DecidesEntities(string) bool { return false }

// Commands is a poll.Decider that decides as the core does for one
// harness whose trigger is a slash command under a minimum role: a
// comment carrying Command by an actor of at least MinRole (default
// write) runs Harness; one by a lesser actor is denied; any other change
// (a comment without the command, an opening, a label) matches nothing.
// Bots never reach it: the cycle's loop guard drops their changes first.
type Commands struct {
	Harness, Command, Forge string
	MinRole                 event.Role
}

// Decide implements poll.Decider.
func (d Commands) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	c := ev.Transition.Comment
	if c == nil || c.Command != d.Command {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	least := d.MinRole
	if least == "" {
		least = event.RoleWrite
	}
	if !ev.Actor.Role.AtLeast(least) {
		return poll.Decision{Verdict: poll.VerdictDenied, Reason: "role " + string(ev.Actor.Role) + " is below " + string(least)}
	}
	return runOf(d.Harness, ev, d.Forge)
}

// Admit implements poll.Decider: every run.
func (Commands) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }

// Refund implements poll.Decider: nothing to give back.
func (Commands) Refund([]plan.Run) {}

// DecidesEntities implements poll.Decider: no entity-source harness.
func (Commands) DecidesEntities(string) bool { return false }

// runOf is the decision to run harness on ev, in forge's scope.
func runOf(harness string, ev *event.Event, forge string) poll.Decision {
	return poll.Decision{Verdict: poll.VerdictRun, Runs: []plan.Run{{Harness: harness, Event: ev,
		Key: scope.KeyOf(harness, ev, forge), WorkItem: plan.WorkItem{URL: ev.Entity.URL, Source: ev.Source.System}}}}
}
