package jirapoll

// Locks no run claimed (ARCHITECTURE.md, "The poll-lock protocol"): they
// block the issue for the pending TTL only; taking one over gives its
// runs' changes back (the checkpoint is rewound to the lock's From), so
// that the next dispatch carries them.

import (
	"encoding/json"
	"maps"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// lockView is what one read of a lock value says.
type lockView struct {
	present bool
	locked  bool // it blocks the issue (claimed and fresh, or unclaimed within the pending TTL)
	stale   bool // older than the stale threshold, or corrupt
	corrupt bool
	// owed is set when taking the lock over owes a give-back
	// (polllock.Lock.Owed): the positions to dispatch again from.
	owed *polllock.Position
	// gone is the Gone list a lock taking this one over carries.
	gone []string
}

// lockView classifies a lock value at now.
func (d *Driver) lockView(key string, raw json.RawMessage, now time.Time) lockView {
	if len(raw) == 0 {
		return lockView{}
	}
	l, err := polllock.Parse(raw)
	if err != nil {
		d.o.Log.Warn("corrupt poll lock value; treated as stale", "issue", key, "property", d.lockKey, "error", err.Error())
		return lockView{present: true, stale: true, corrupt: true}
	}
	v := lockView{present: true, stale: l.Stale(now, d.o.StaleThreshold)}
	v.locked = !l.Expired(now, d.o.PendingTTL, d.o.StaleThreshold)
	if l.Owed() {
		v.owed, v.gone = l.From, l.Superseding()
		if aheadFrom(*l.From, now) {
			// Believed, it would give nothing back: give back from the
			// issue's creation instead (as for a corrupt lastCheck).
			d.o.Log.Warn("poll lock's from lies in the future; its give-back starts from the issue's creation", "issue", key,
				"property", d.lockKey, "from", l.From.TS.UTC().Format(time.RFC3339))
			v.owed = &polllock.Position{}
		}
	}
	return v
}

// aheadFrom reports whether a position of from lies in the future
// (trackerclock.Ahead).
func aheadFrom(from polllock.Position, now time.Time) bool {
	if trackerclock.Ahead(from.TS, now) {
		return true
	}
	for _, t := range from.Harness {
		if trackerclock.Ahead(t, now) {
			return true
		}
	}
	return false
}

// judge combines an issue's lock, checkpoint and last update. A lock owed
// a give-back is taken over when it no longer blocks the issue and the
// issue changed since, or when it is stale: the checkpoint is then
// rewound to the lock's From and the issue is eligible (takeover). It is
// never removable (stale below means: removable, no give-back owed), and
// while it is there the issue is not handled (the cursor holds it).
func judge(lv lockView, base poll.Checkpoint, updated time.Time) view {
	v := view{locked: lv.locked, base: base}
	v.changed = base.At.IsZero() || updated.After(base.At) || base.Pending()
	if lv.owed != nil && !lv.locked && (v.changed || lv.stale) {
		v.base, v.changed, v.takeover, v.giveBack = rewind(base, *lv.owed), true, true, lv.owed
		v.gone = lv.gone
	}
	v.stale = lv.stale && lv.owed == nil
	v.expired = lv.present && !lv.locked
	v.owed = lv.owed != nil
	return v
}

// rewind is base with every position moved back to from's where from's is
// older: the changes after from are offered again.
func rewind(base poll.Checkpoint, from polllock.Position) poll.Checkpoint {
	out := base.Clone()
	if from.TS.Before(out.At) { // a zero time (no checkpoint) is the oldest
		out.At = from.TS
	}
	retry := map[string]time.Time{}
	for h := range maps.Keys(base.Retry) {
		retry[h] = base.Pos(h)
	}
	for h := range maps.Keys(from.Harness) {
		if p := from.Pos(h); !p.After(base.Pos(h)) {
			retry[h] = p
		} else if _, ok := retry[h]; !ok {
			retry[h] = base.Pos(h)
		}
	}
	out.Retry = nil
	for h, t := range retry {
		if t.Before(out.At) {
			if out.Retry == nil {
				out.Retry = map[string]time.Time{}
			}
			out.Retry[h] = t
		}
	}
	return out
}

// position is cp's positions as a lock's From.
func position(cp poll.Checkpoint) *polllock.Position {
	p := &polllock.Position{TS: cp.At}
	for h := range maps.Keys(cp.Retry) {
		if t := cp.Pos(h); t.Before(cp.At) {
			if p.Harness == nil {
				p.Harness = map[string]time.Time{}
			}
			p.Harness[h] = t
		}
	}
	return p
}
