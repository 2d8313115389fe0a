package pollcycle_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	receiptspkg "github.com/fullsend-dev/fullsend/internal/receipts"
)

// schedPoller is a world poller whose item has no change to decide but
// an entity due for harness "triage" (scheduled discovery): it is swept
// in whenever it is not locked (or its lock is stale), with the world's
// receipts, which it keeps (poll.ReceiptKeeper).
type schedPoller struct {
	*poller
	receipts *receiptspkg.Receipts
	res      *entity.Resolution
}

func (p *schedPoller) Discover(context.Context) (*poll.Discovery, error) {
	w := p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lockID != "" && !w.stale {
		return &poll.Discovery{Candidates: 1}, nil
	}
	rs := receiptspkg.Receipts{}
	for h, r := range *p.receipts {
		rs[h] = r
	}
	it := &poll.Item{ID: "P-1", Base: w.check.Clone(), Cutoff: w.check.At, StaleLock: w.stale, Entity: p.res, Receipts: rs}
	return &poll.Discovery{Candidates: 1, Swept: []*poll.Item{it}}, nil
}

func (p *schedPoller) Verify(ctx context.Context, items []*poll.Item) error {
	if err := p.poller.Verify(ctx, items); err != nil {
		return err
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	for _, it := range items {
		rs := receiptspkg.Receipts{}
		for h, r := range *p.receipts {
			rs[h] = r
		}
		it.Receipts = rs
	}
	return nil
}

func (p *schedPoller) Tried(_ context.Context, it *poll.Item, runs map[string]polllock.EntityRun) error {
	if p.dead {
		return errors.New("killed")
	}
	p.w.mu.Lock()
	for h, er := range runs {
		p.receipts.Tried(h, er.Version, p.id, p.w.now)
	}
	p.w.mu.Unlock()
	p.at("tries")
	return nil
}

func (p *schedPoller) Capabilities() poll.Capabilities { return poll.Capabilities{Scheduled: p} }

func (p *schedPoller) EnableSweep() {}

func (p *schedPoller) GaveUp(context.Context, *poll.Item, string, string) error { return nil }

// A poller is killed at each point of a scheduled dispatch; the next
// pollers run once its lock is stale, and the runs that started succeed
// (they write their receipt when they end). The entity gets exactly one
// scheduled run, under its scope key @ its version, whatever the crash;
// no lock is left.
func TestScheduledCrashAtEachPointDispatchesOnce(t *testing.T) {
	for _, crash := range []string{"", "tries", "intent", "dispatch", "record", "checkpoint", "before checkpoint"} {
		t.Run(crash, func(t *testing.T) {
			w := &world{check: poll.Checkpoint{At: t0.Add(time.Minute)}, changes: []poll.Change{comment(time.Second, "old")}}
			res := schedEntity("needs-triage")
			receipts := &receiptspkg.Receipts{}
			ended := 0
			cycle := func(id, crash string) {
				p := &schedPoller{poller: &poller{w: w, id: id, crash: crash, find: true}, receipts: receipts, res: res}
				o := opts(p, fakeCore{}, nil)
				o.Output = finder{platform{p.poller}}
				o.Schedule = &poll.Schedule{Decider: labelled{}, Policy: "allow", Invoker: "world-poll:" + id, Forge: "github"}
				w.mu.Lock()
				w.cycles++
				w.now = t0.Add(time.Hour + time.Duration(w.cycles)*15*time.Minute)
				now := w.now
				w.mu.Unlock()
				o.Now = func() time.Time { return now }
				if _, err := pollcycle.Run(context.Background(), o); err != nil {
					t.Fatal(err)
				}
				w.mu.Lock()
				for _, r := range w.runs[ended:] { // the runs that started succeed
					receipts.Succeeded(r.Harness, res.Entity.Version, "world-out/"+r.Harness, now)
				}
				ended = len(w.runs)
				w.mu.Unlock()
				w.endRuns()
				w.mu.Lock()
				if w.lockID != "" {
					w.stale = true
				}
				w.mu.Unlock()
			}
			cycle("A", crash)
			cycle("B", "")
			cycle("C", "")
			if len(w.runs) != 1 {
				t.Fatalf("%d scheduled runs, want 1", len(w.runs))
			}
			want := fmt.Sprintf("triage:acme/platform:jira:work_item:10042@%s", res.Entity.Version)
			if k := w.runs[0].WorkItem.IdempotencyKey; k != want {
				t.Errorf("key %q, want %q", k, want)
			}
			if !receipts.Covers("triage", res.Entity.Version) {
				t.Errorf("no receipt: %+v", *receipts)
			}
			if w.lockID != "" {
				t.Errorf("lock of %s left", w.lockID)
			}
		})
	}
}
