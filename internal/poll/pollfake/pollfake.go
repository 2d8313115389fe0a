// Package pollfake holds the fakes the poll cycle's and the controller's
// tests drive (tests only): a driver over fixed items that records the
// writes asked of it, an output that records its runs, and items with
// human comments at fixed times.
package pollfake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Driver is an in-memory poll driver over a fixed set of items (Items);
// it records the writes the cycle asks for (Writes). Verify loses the
// items Lose names, or waits for its context to end with Hang; Acquire
// closes Locked when set.
type Driver struct {
	Mu     sync.Mutex
	Items  []*poll.Item
	Lose   map[string]bool // Verify reports these lost
	Locked chan struct{}   // closed when Acquire ran (if non-nil)
	Hang   bool            // Verify waits until its context ends
	log    []string
}

// Record notes a write.
func (f *Driver) Record(format string, args ...any) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.log = append(f.log, fmt.Sprintf(format, args...))
}

// Writes are the writes the cycle asked for, in order.
func (f *Driver) Writes() []string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]string(nil), f.log...)
}

func (f *Driver) Name() string { return "fake-poll" }

func (f *Driver) Discover(context.Context) (*poll.Discovery, error) {
	return &poll.Discovery{Candidates: len(f.Items), Eligible: f.Items}, nil
}

func (f *Driver) Recheck(context.Context, []*poll.Item) error { return nil }

func (f *Driver) Acquire(_ context.Context, items []*poll.Item) error {
	for _, it := range items {
		it.Attempt()
		it.Hold()
		f.Record("lock %s %d", it.ID, len(it.Planned))
	}
	if f.Locked != nil {
		close(f.Locked)
	}
	return nil
}

func (f *Driver) Detect(context.Context, []*poll.Item) error { return nil }

func (f *Driver) Verify(ctx context.Context, items []*poll.Item) error {
	if f.Hang {
		<-ctx.Done()
		return ctx.Err()
	}
	for _, it := range items {
		if f.Lose[it.ID] {
			it.Lose()
		}
	}
	return nil
}

func (f *Driver) Dispatched(_ context.Context, items []*poll.Item) error {
	for _, it := range items {
		f.Record("dispatched %s %d", it.ID, len(it.Refs))
	}
	return nil
}

func (f *Driver) Advance(_ context.Context, it *poll.Item, cp poll.Checkpoint) error {
	f.Record("advance %s %s retry=%d", it.ID, cp.At.Format("15:04:05"), len(cp.Retry))
	return nil
}

func (f *Driver) Release(_ context.Context, it *poll.Item, check bool) error {
	f.Record("release %s", it.ID)
	return nil
}

func (f *Driver) RemoveStale(context.Context, []*poll.Item) (int, error) { return 0, nil }

func (f *Driver) PollLock(it *poll.Item) *plan.PollLock {
	return &plan.PollLock{ID: "p1", Driver: "fake-poll", Property: it.ID}
}

func (f *Driver) Usage() poll.Usage { return poll.Usage{} }

func (f *Driver) Capabilities() poll.Capabilities { return poll.Capabilities{} }

// T0 is the fakes' epoch: an item's checkpoint, its comments a second
// apart after it.
var T0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

// Item builds an item with one human comment per text at T0+1s, +2s, ...
func Item(id string, texts ...string) *poll.Item {
	it := &poll.Item{ID: id, Base: poll.Checkpoint{At: T0}, Cutoff: T0.Add(time.Duration(len(texts)) * time.Second)}
	for i, text := range texts {
		cmd, instr := event.ParseCommand(text)
		ev := &event.Event{Repo: "acme/platform",
			Entity:     event.Entity{Kind: event.KindWorkItem, ID: 1, Key: id, URL: "https://jira.example/browse/" + id},
			Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: text, Command: cmd, Instruction: instr}},
			Actor:      event.Actor{ID: "u", Kind: event.ActorHuman, Role: "write"},
			State:      event.State{Labels: []string{}}, Source: event.Source{System: event.SystemJira, RawType: "comment"}}
		it.Changes = append(it.Changes, poll.Change{At: T0.Add(time.Duration(i+1) * time.Second), Event: ev})
	}
	return it
}

// Out is an output that records its runs (Runs, under Mu); Fail lists
// harnesses whose runs fail; Short drops the last result.
type Out struct {
	Mu    sync.Mutex
	Runs  []plan.Run
	Fail  map[string]bool
	Short bool
}

func (o *Out) Name() string { return "fake-out" }

func (o *Out) Dispatch(_ context.Context, runs []plan.Run) []output.Result {
	o.Mu.Lock()
	defer o.Mu.Unlock()
	var res []output.Result
	for _, r := range runs {
		if o.Fail[r.Harness] {
			res = append(res, output.Result{Run: r, Err: errors.New("boom")})
			continue
		}
		o.Runs = append(o.Runs, r)
		res = append(res, output.Result{Run: r, Ref: &plan.Ref{Driver: "fake-out", ID: r.Harness}})
	}
	if o.Short {
		res = res[:len(res)-1]
	}
	return res
}
