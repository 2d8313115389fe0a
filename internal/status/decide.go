package status

import (
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Verdicts of a Change besides the core's (run, killed, denied, no_match).
const (
	VerdictBot     = "bot"     // the loop guard: bots never start runs
	VerdictInvalid = "invalid" // the event fails validation: it would be quarantined
	VerdictHandled = "handled" // every matching harness already handled it
)

// Change is one detected change and the dry-run decision about it.
type Change struct {
	At        time.Time `json:"at"`
	Change    string    `json:"change"`
	Kind      string    `json:"kind"`
	Actor     string    `json:"actor"`
	Role      string    `json:"role"`
	Verdict   string    `json:"verdict"`
	Reason    string    `json:"reason"`
	Harnesses []string  `json:"harnesses,omitempty"`
	// Steered are the harnesses whose running agent the change was
	// delivered to (docs/steering.md): a cycle starts no run of theirs
	// for it.
	Steered []string `json:"steered,omitempty"`
}

// WouldRun is a run a cycle would dispatch for the item now.
type WouldRun struct {
	Harness string    `json:"harness"`
	Change  string    `json:"change"`
	At      time.Time `json:"at"`
	Scope   string    `json:"scope"`
}

// decide runs the item's changes through the core as a cycle would
// (loop guard, validation, kill switch, authorization, triggers over the
// event and, for entity-source harnesses, the item's entity
// (it.Entity), the newest change per harness), with no writes and no
// dispatch. The
// per-scope hourly breaker is not applied: its counts live in the
// pollers' memory.
func (s *snapshotter) decide(r *IssueReport, it *poll.Item) error {
	eng, err := core.New(core.Options{Config: s.cfg, Harnesses: s.reg, Log: s.o.Log})
	if err != nil {
		return err
	}
	pos := map[string]int{}
	for _, c := range it.Window() {
		ev := c.Event
		ch := Change{At: c.At.UTC(), Change: poll.ChangeID(ev, c.At), Kind: ev.Transition.Kind, Actor: ev.Actor.ID, Role: string(ev.Actor.Role)}
		switch {
		case ev.Actor.Kind == event.ActorBot:
			ch.Verdict, ch.Reason = VerdictBot, "bots never start runs (loop guard)"
		case ev.Validate() != nil:
			ch.Verdict, ch.Reason = VerdictInvalid, "invalid event, would be quarantined: "+ev.Validate().Error()
		default:
			s.verdict(&ch, eng.DecideWith(ev, it.Entity), it, c, r, pos)
		}
		r.Changes = append(r.Changes, ch)
	}
	if halted, why := eng.Halted(); halted {
		r.WouldDispatch, r.Held = []WouldRun{}, why+": a cycle does nothing"
	}
	return nil
}

// verdict fills ch from the core's decision and records, per harness,
// the run of the newest matching change in r.WouldDispatch.
func (s *snapshotter) verdict(ch *Change, d core.Decision, it *poll.Item, c poll.Change, r *IssueReport, pos map[string]int) {
	ch.Verdict, ch.Reason = d.Verdict, d.Reason
	if d.Verdict != core.VerdictRun {
		return
	}
	var handled []string
	for _, run := range d.Runs {
		if slices.Contains(c.Consumed, run.Harness) {
			ch.Steered = append(ch.Steered, run.Harness)
			continue
		}
		if !c.At.After(it.Base.Pos(run.Harness)) {
			handled = append(handled, run.Harness)
			continue
		}
		ch.Harnesses = append(ch.Harnesses, run.Harness)
		w := WouldRun{Harness: run.Harness, Change: ch.Change, At: ch.At, Scope: string(run.Key)}
		if i, ok := pos[run.Harness]; ok {
			r.WouldDispatch[i] = w // coalesced: the newest change wins
			continue
		}
		pos[run.Harness] = len(r.WouldDispatch)
		r.WouldDispatch = append(r.WouldDispatch, w)
	}
	if len(ch.Harnesses) == 0 {
		ch.Verdict = VerdictHandled
	}
	if len(handled) > 0 {
		ch.Reason += "; already handled by " + strings.Join(handled, ", ")
	}
	if len(ch.Steered) > 0 {
		ch.Reason += "; delivered into the running agent of " + strings.Join(ch.Steered, ", ")
	}
}
