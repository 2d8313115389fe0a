package pollcycle

import (
	"log/slog"
	"slices"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// itemPlan is what the core decided for one item.
type itemPlan struct {
	it     *poll.Item
	runs   []plan.Run      // newest matching event per harness, harness order of first match
	pos    []changepos.Pos // pos[i] is the position of the change runs[i] is for
	killed bool            // the kill switch is on: leave the item untouched
	newAt  changepos.Pos   // the checkpoint every handled harness advances to
	poison []poll.Poison   // invalid events: quarantined, never offered to the core
	// undecided lists, per harness, the changes its trigger could not
	// decide; held is set by the dispatch stage for the harnesses left for
	// a later cycle because of them (undecided.go).
	undecided map[string][]poll.Poison
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
func (p *itemPlan) addPoison(ps poll.Poison) {
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
func decideItem(it *poll.Item, d poll.Decider, validate func(*event.Event) error, log *slog.Logger, st *poll.CycleStats) itemPlan {
	p := itemPlan{it: it, newAt: it.Base.PosAt()}
	if cut := changepos.At(it.Cutoff); cut.After(p.newAt) {
		p.newAt = cut
	}
	changes := it.Window()
	slices.SortStableFunc(changes, func(a, b poll.Change) int { return a.Pos().Compare(b.Pos()) })
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
				p.addPoison(poll.Poison{Change: poll.ChangeID(ev, c.At), At: c.At, Reason: "invalid event: " + err.Error()})
				continue
			}
		}
		dec := d.Decide(ev, it.Entity)
		p.noteUndecided(c, dec.Errors, st)
		st.NoteDenials(dec.EntityDenied)
		st.NoteOverlayErrors(dec.OverlayErrors)
		switch dec.Verdict {
		case poll.VerdictKilled:
			p.killed = true
			p.runs, p.pos, p.poison = nil, nil, nil
			return p
		case poll.VerdictDenied:
			st.EventsDenied++
			log.Debug("change denied", "item", it.ID, "transition", ev.Transition.Kind, "actor", ev.Actor.ID, "reason", dec.Reason)
			continue
		case poll.VerdictNoMatch:
			st.EventsNoMatch++
			continue
		case poll.VerdictError:
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
