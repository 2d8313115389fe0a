package jirapoll

// Taking over a lock no run claimed, within the claim window
// (ARCHITECTURE.md, "The poll-lock protocol", steps 3 and 4). A run that
// claims such a lock late writes its claim, waits polllock.ClaimWaitFor
// and re-reads; the poller's takeover waits as long between its write
// and its verification. Of the two, one sees the other's write only if
// each write lands within that wait of the read it was decided on, so
// the takeover's write is bounded like the claim: it never leaves later
// than polllock.ClaimSendWithin after the consistent re-read that found
// the lock (a pacing wait or a Retry-After that would take it past is not
// waited out: the lock is read again and, when it is still the same
// unclaimed lock, written within the window of that read, else the item
// waits for the next cycle), and a write answered more than the claim
// wait after its read, which may have landed over a claim the run had
// confirmed already, is undone: the lock read is put back and nothing is
// dispatched.

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// lockRead is a lock as a read before the takeover found it, and when
// that read was sent (Jira's clock as the driver reads it).
type lockRead struct {
	raw json.RawMessage
	at  time.Time
}

// errClaimWindow is the gate's refusal of a takeover write that would
// leave after the claim window.
var errClaimWindow = errors.New("it would leave later than the claim window allows after the read that found the lock")

// noteRead keeps the read that found the lock item key's takeover replaces
// (nothing when the item is not taken over).
func (d *Driver) noteRead(key string, takeover bool, r lockRead) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !takeover {
		delete(d.reads, key)
		return
	}
	if d.reads == nil {
		d.reads = map[string]lockRead{}
	}
	d.reads[key] = r
}

// takenRead returns (and forgets) the read noteRead kept for key.
func (d *Driver) takenRead(key string) lockRead {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.reads[key]
	delete(d.reads, key)
	return r
}

// claimWindow is the claim wait under the stale threshold
// (polllock.ClaimWaitFor), as the runs wait it: a takeover write answered
// later than that after its read is not trusted.
func (d *Driver) claimWindow() time.Duration { return polllock.ClaimWaitFor(d.o.StaleThreshold) }

// takeOver writes this cycle's lock on it over the unclaimed lock the
// consistent re-read found, within the claim window of a read (see the
// file comment), and moves it on: Hold (written in time), Skip (not
// written: the lock changed, or no write could leave in time), Lose (a
// late write, the lock read put back), or Fail (a failed write, answered
// in time: the cycle removes the lock where it holds this cycle's id,
// with the give-back in the checkpoint).
func (d *Driver) takeOver(ctx context.Context, it *poll.Item, stop *firstErr) {
	read := d.takenRead(it.ID)
	for again := false; ; again = true {
		late, err := d.writeWithin(ctx, it, read)
		switch {
		case errors.Is(err, jira.ErrNotSent) && !again:
			var same bool
			read, same, err = d.rereadLock(ctx, it, read)
			if err != nil {
				classifyErr(it, "re-reading the poll lock to take it over", err, stop)
				return
			}
			if same {
				continue
			}
			d.forgo(it, "the poll lock changed since it was read; left for the next cycle")
			it.Skip()
		case errors.Is(err, jira.ErrNotSent):
			d.forgo(it, "the takeover's lock write could not leave within the claim window; left for the next cycle", "error", err.Error())
			it.Skip()
		case late:
			d.putBack(ctx, it, read, err)
			d.forgo(it, "the takeover's lock write was answered after the claim window; the lock read was put back")
			it.Lose()
		case err != nil:
			classifyErr(it, "writing the poll lock", err, stop)
		default:
			it.Hold()
		}
		return
	}
}

// writeWithin writes this cycle's lock on it with no attempt leaving
// later than polllock.ClaimSendWithin after read; late reports whether
// the write ended more than the claim wait after read (when it landed is
// then unknown).
func (d *Driver) writeWithin(ctx context.Context, it *poll.Item, read lockRead) (late bool, err error) {
	sendBy := read.at.Add(polllock.ClaimSendWithin(d.o.StaleThreshold))
	gate := func(wait time.Duration) error {
		if d.o.Now().Add(wait).After(sendBy) {
			return errClaimWindow
		}
		return nil
	}
	err = d.o.API.SetProperty(jira.WithGate(ctx, gate), it.ID, d.lockKey, d.lockValue(it, polllock.PhasePending, it.Planned))
	return d.o.Now().After(read.at.Add(d.claimWindow())), err
}

// rereadLock reads it's lock again (a strongly consistent read) before a
// takeover write that could not leave in time: same is true when it is
// still the lock prev found (same id, phase and time: no run claimed it,
// no poller wrote it since). The read's time is when it left, after the
// waits that held it back (jira.SentAt).
func (d *Driver) rereadLock(ctx context.Context, it *poll.Item, prev lockRead) (r lockRead, same bool, err error) {
	r.at = d.o.Now()
	raw, found, err := d.o.API.GetProperty(jira.WithGate(ctx, jira.SentAt(&r.at, d.o.Now)), it.ID, d.lockKey)
	if err != nil || !found {
		return r, false, err
	}
	r.raw = raw
	was, err1 := polllock.Parse(prev.raw)
	now, err2 := polllock.Parse(raw)
	return r, err1 == nil && err2 == nil && now.ID == was.ID && now.Phase == was.Phase && now.TS.Equal(was.TS), nil
}

// putBack writes the lock read back over this cycle's lock, when the
// item holds this cycle's lock, with a fresh time: a run may have claimed
// the lock read and confirmed its claim before this cycle's late write
// landed; with its lock back (same id), blocking the item for the pending
// TTL, its next refresh claims it again. If no run claimed it, it is
// taken over once the pending TTL has passed. When that fails this
// cycle's lock may be left: it carries the same positions to give back
// (From), and expires after the pending TTL.
func (d *Driver) putBack(ctx context.Context, it *poll.Item, read lockRead, werr error) {
	ctx = context.WithoutCancel(ctx)
	back := read.raw
	if l, err := polllock.Parse(read.raw); err == nil {
		l.TS = d.o.Now()
		back = l.Marshal()
	}
	raw, found, err := d.o.API.GetProperty(ctx, it.ID, d.lockKey)
	if err == nil && found {
		if l, perr := polllock.Parse(raw); perr == nil && l.ID == d.issue(it.ID).lockID {
			err = d.o.API.SetProperty(ctx, it.ID, d.lockKey, json.RawMessage(back))
		}
	}
	if err != nil {
		attrs := []any{"issue", it.ID, "error", err.Error()}
		if werr != nil {
			attrs = append(attrs, "write_error", werr.Error())
		}
		d.o.Log.Warn("could not put back the poll lock a late takeover replaced; this cycle's lock expires and gives its changes back", attrs...)
	}
}

// forgo logs why the takeover of it's lock was given up, and forgets its
// give-back: nothing of this cycle is on the item.
func (d *Driver) forgo(it *poll.Item, why string, attrs ...any) {
	st := d.issue(it.ID)
	st.giveBack, st.owed = nil, false
	d.o.Log.Info(why, append([]any{"issue", it.ID, "claim_window", d.claimWindow()}, attrs...)...)
}
