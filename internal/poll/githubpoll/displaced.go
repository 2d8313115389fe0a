package githubpoll

import (
	"context"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
)

// undisplace lowers the newest change recorded for a scope tail below
// every change whose runs GitHub's concurrency group cancelled when an
// older change's run was queued after them, and that no live run covers
// (newest.Displaced): the dispatcher of the older change re-runs the
// newer one (ghadispatch.Settle), but one that died first leaves it
// unhandled, and the item's next cycle dispatches it again. by is the
// run index's runs by tail and harness. It returns the tails lowered.
func undisplace(newestAt map[string]changepos.Pos, by map[string]map[string][]runInfo) map[string]bool {
	lowered := map[string]bool{}
	for tail, hs := range by {
		for h, rs := range hs {
			runs := make([]newest.Run, 0, len(rs))
			for _, r := range rs {
				runs = append(runs, newest.Run{ID: r.id, Key: h + ":" + tail + "@" + r.suffix, Created: r.created,
					Ended: r.updated, State: ghadispatch.RunState(r.status, r.conclusion)})
			}
			for _, p := range newest.Displaced(runs) {
				lowered[tail] = true
				if before := p.Prev(); newestAt[tail].After(before) {
					newestAt[tail] = before
				}
			}
		}
	}
	return lowered
}

// due is the subjects of subs a cycle reads: those that changed since
// this poller handled them, and those it handled whose newest change
// GitHub's concurrency group dropped since (undisplace): a dispatcher of
// an older change queued its run after the newer change's pending run
// and died before re-running it, and the item's updated_at did not move.
// That can only happen to a run that was waiting, so the run list is
// read (conditionally: a 304 when no run changed) when a subject is due,
// or when a run of the last list read was waiting; an idle window whose
// runs all started reads nothing more.
func (p *Poller) due(ctx context.Context, subs []subject, floor time.Time) ([]subject, error) {
	var todo, handled []subject
	p.mu.Lock()
	for _, s := range subs {
		if t, ok := p.handled[s.number()]; !ok || s.updated.After(t) {
			todo = append(todo, s)
		} else {
			handled = append(handled, s)
		}
	}
	p.mu.Unlock()
	if len(todo) == 0 && !p.keys.isRead() {
		p.keys.restoreCached(floor) // a one-shot process: the list its predecessor read
	}
	if len(todo) == 0 && !p.keys.anyWaiting() {
		return nil, nil
	}
	if err := p.keys.refresh(ctx, floor); err != nil {
		return nil, err
	}
	for _, s := range handled {
		if p.keys.wasDisplaced(s.tail(p.o.Repo)) {
			p.mu.Lock()
			delete(p.handled, s.number())
			p.mu.Unlock()
			todo = append(todo, s)
		}
	}
	return todo, nil
}
