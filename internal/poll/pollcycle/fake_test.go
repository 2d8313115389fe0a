package pollcycle_test

import (
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollfake"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// The fakes of package pollfake, by the names these tests use.
type (
	fakeDriver = pollfake.Driver
	fakeOut    = pollfake.Out
)

var t0 = pollfake.T0

func item(id string, texts ...string) *poll.Item { return pollfake.Item(id, texts...) }

// fakeCore matches "/run" comments for harness "a" and, with both, "b".
type fakeCore struct {
	killed bool
	skip   bool // Admit skips every run
}

func (c fakeCore) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	if c.killed {
		return poll.Decision{Verdict: poll.VerdictKilled}
	}
	cm := ev.Transition.Comment
	if cm == nil || cm.Command != "/run" {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	var runs []plan.Run
	for _, h := range []string{"a", "b"} {
		if h == "b" && cm.Instruction != "both" {
			continue
		}
		runs = append(runs, plan.Run{Harness: h, Event: ev, Key: scope.KeyOf(h, ev, "")})
	}
	return poll.Decision{Verdict: poll.VerdictRun, Runs: runs}
}

func (c fakeCore) Admit(runs []plan.Run) (admitted, skipped []plan.Run) {
	if c.skip {
		return nil, runs
	}
	return runs, nil
}

func (fakeCore) Refund([]plan.Run) {}

func (fakeCore) DecidesEntities(string) bool { return false }
