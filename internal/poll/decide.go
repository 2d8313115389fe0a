package poll

import (
	"log/slog"
	"slices"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Verdicts of a Decision (the same words as package core).
const (
	VerdictRun     = "run"
	VerdictKilled  = "killed"
	VerdictDenied  = "denied"
	VerdictNoMatch = "no_match"
	VerdictError   = "error" // no trigger matched and some could not decide (Decision.Errors)
)

// Decision is the core's answer for one event: a verdict, why, and one run
// per matching harness (Key and WorkItem set, PollLock nil).
type Decision struct {
	Verdict string
	Reason  string
	Runs    []plan.Run
	// Errors are the harnesses whose trigger could not decide the event
	// (stopped by its cost limit): neither a match nor no match. The cycle
	// retries them and quarantines the change after MaxDispatchAttempts
	// cycles (undecided.go).
	Errors []TriggerError
	// EntityDenied lists the entity-source harnesses denied evaluation of
	// the change's entity (it could not be resolved, or its activity not
	// completely enumerated): no run for them from this change, as for a
	// no match; the checkpoint moves past it (docs/entities.md).
	EntityDenied []EntityDenial
	// OverlayErrors names the harnesses of Runs whose overlays could not
	// be evaluated: their run has the harness's own settings (counted in
	// CycleStats.OverlayErrors).
	OverlayErrors []string
}

// EntityDenial is an entity-source harness denied evaluation of an
// entity: Reason is a short word for metrics ("unresolved",
// "incomplete"), Detail why.
type EntityDenial struct {
	Harness, Reason, Detail string
}

// TriggerError is a harness whose trigger could not decide an event.
type TriggerError struct {
	Harness string
	Err     error
}

// Decider is the core as the cycle uses it (CoreDecider adapts
// *core.Engine). Decide decides one change's event with its item's entity
// (res: Item.Entity, nil when none was resolved) for every harness: the
// event-only ones on the event alone, the entity-source ones on (entity,
// event). It must be free of side effects; Admit applies the per-scope
// circuit breaker to the runs that will really be dispatched, Refund
// hands back what the failed ones took, and DecidesEntities says whether
// the entity stage runs.
type Decider interface {
	Decide(ev *event.Event, res *entity.Resolution) Decision
	Admit(runs []plan.Run) (admitted, skipped []plan.Run)
	Refunder
	EntityDecider
}

// EntityDecider is the Decider's entity half: DecidesEntities reports whether some enabled harness declares system
// among its entity sources. The cycle resolves entities (EntityResolver)
// only for a Decider that says so for the driver's system.
type EntityDecider interface {
	DecidesEntities(system string) bool
}

// itemPlan is what the core decided for one item.
type itemPlan struct {
	it     *Item
	runs   []plan.Run      // newest matching event per harness, harness order of first match
	pos    []changepos.Pos // pos[i] is the position of the change runs[i] is for
	killed bool            // the kill switch is on: leave the item untouched
	newAt  changepos.Pos   // the checkpoint every handled harness advances to
	poison []Poison        // invalid events: quarantined, never offered to the core
	// undecided lists, per harness, the changes its trigger could not
	// decide; held is set by the dispatch stage for the harnesses left for
	// a later cycle because of them (undecided.go).
	undecided map[string][]Poison
	held      map[string]bool

	// Filled in by the dispatch stage (intent.go).
	blocked bool                        // leave the item untouched (a platform lookup or intent write failed)
	found   int                         // runs of stale intents the platform already had
	intents map[string]lastcheck.Intent // intents written this cycle, by harness
	sched   scheduled                   // scheduled runs and give-ups (schedule.go)
}

// addPoison records an invalid event once per change: the events one
// edit maps to (a changelog entry adding many labels) share the change's
// id, and the change is quarantined once.
func (p *itemPlan) addPoison(ps Poison) {
	for _, q := range p.poison {
		if q.Change == ps.Change {
			return
		}
	}
	p.poison = append(p.poison, ps)
}

// decideItem runs every change in it's window through the core and keeps,
// per harness, the run of the newest matching change (coalescing), newest
// by position (time, then id). A change at or before a harness's
// checkpoint position is not offered to that harness again. Counters go
// to st.
func decideItem(it *Item, d Decider, validate func(*event.Event) error, log *slog.Logger, st *CycleStats) itemPlan {
	p := itemPlan{it: it, newAt: it.Base.PosAt()}
	if cut := changepos.At(it.Cutoff); cut.After(p.newAt) {
		p.newAt = cut
	}
	changes := it.Window()
	slices.SortStableFunc(changes, func(a, b Change) int { return a.Pos().Compare(b.Pos()) })
	if n := len(changes); n > 0 && changes[n-1].Pos().After(p.newAt) {
		p.newAt = changes[n-1].Pos() // the ids of the cutoff's instant handled
	}
	st.Events += len(changes)
	pos := map[string]int{}
	for _, c := range changes {
		ev := c.Event
		if ev.Actor.Kind == event.ActorBot {
			st.EventsBot++
			log.Debug("change dropped by the bot loop guard: bots never start runs", "item", it.ID, "actor", ev.Actor.ID)
			continue
		}
		if validate != nil {
			if err := validate(ev); err != nil {
				st.EventsInvalid++
				p.addPoison(Poison{Change: ChangeID(ev, c.At), At: c.At, Reason: "invalid event: " + err.Error()})
				continue
			}
		}
		dec := d.Decide(ev, it.Entity)
		p.noteUndecided(c, dec.Errors, st)
		st.noteDenials(dec.EntityDenied)
		st.noteOverlayErrors(dec.OverlayErrors)
		switch dec.Verdict {
		case VerdictKilled:
			p.killed = true
			p.runs, p.pos, p.poison = nil, nil, nil
			return p
		case VerdictDenied:
			st.EventsDenied++
			log.Debug("change denied", "item", it.ID, "transition", ev.Transition.Kind, "actor", ev.Actor.ID, "reason", dec.Reason)
			continue
		case VerdictNoMatch:
			st.EventsNoMatch++
			continue
		case VerdictError:
			continue
		}
		for _, r := range dec.Runs {
			if !c.Pos().After(it.Base.PosOf(r.Harness)) || slices.Contains(c.Consumed, r.Harness) {
				continue // this harness already handled the change
			}
			st.RunsMatched++
			if i, ok := pos[r.Harness]; ok {
				st.RunsCoalesced++
				p.runs[i], p.pos[i] = r, c.Pos()
				continue
			}
			pos[r.Harness] = len(p.runs)
			p.runs = append(p.runs, r)
			p.pos = append(p.pos, c.Pos())
		}
	}
	return p
}
