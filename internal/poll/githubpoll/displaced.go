package githubpoll

import (
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
// run index's runs by tail and harness.
func undisplace(newestAt map[string]changepos.Pos, by map[string]map[string][]runInfo) {
	for tail, hs := range by {
		for h, rs := range hs {
			runs := make([]newest.Run, 0, len(rs))
			for _, r := range rs {
				runs = append(runs, newest.Run{ID: r.id, Key: h + ":" + tail + "@" + r.suffix, Created: r.created,
					Ended: r.updated, State: ghadispatch.RunState(r.status, r.conclusion)})
			}
			for _, p := range newest.Displaced(runs) {
				if before := p.Prev(); newestAt[tail].After(before) {
					newestAt[tail] = before
				}
			}
		}
	}
}
