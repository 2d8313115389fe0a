package pollcycle_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// fakeDriver is an in-memory poll driver over a fixed set of items; it
// records the writes the cycle asks for.
type fakeDriver struct {
	mu     sync.Mutex
	items  []*poll.Item
	lose   map[string]bool // Verify reports these lost
	locked chan struct{}   // closed when Acquire ran (if non-nil)
	hang   bool            // Verify waits until its context ends
	log    []string
}

func (f *fakeDriver) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, fmt.Sprintf(format, args...))
}

func (f *fakeDriver) writes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

func (f *fakeDriver) Name() string { return "fake-poll" }

func (f *fakeDriver) Discover(context.Context) (*poll.Discovery, error) {
	return &poll.Discovery{Candidates: len(f.items), Eligible: f.items}, nil
}

func (f *fakeDriver) Recheck(context.Context, []*poll.Item) error { return nil }

func (f *fakeDriver) Acquire(_ context.Context, items []*poll.Item) error {
	for _, it := range items {
		it.Attempt()
		it.Hold()
		f.record("lock %s %d", it.ID, len(it.Planned))
	}
	if f.locked != nil {
		close(f.locked)
	}
	return nil
}

func (f *fakeDriver) Detect(context.Context, []*poll.Item) error { return nil }

func (f *fakeDriver) Verify(ctx context.Context, items []*poll.Item) error {
	if f.hang {
		<-ctx.Done()
		return ctx.Err()
	}
	for _, it := range items {
		if f.lose[it.ID] {
			it.Lose()
		}
	}
	return nil
}

func (f *fakeDriver) Dispatched(_ context.Context, items []*poll.Item) error {
	for _, it := range items {
		f.record("dispatched %s %d", it.ID, len(it.Refs))
	}
	return nil
}

func (f *fakeDriver) Advance(_ context.Context, it *poll.Item, cp poll.Checkpoint) error {
	f.record("advance %s %s retry=%d", it.ID, cp.At.Format("15:04:05"), len(cp.Retry))
	return nil
}

func (f *fakeDriver) Release(_ context.Context, it *poll.Item, check bool) error {
	f.record("release %s", it.ID)
	return nil
}

func (f *fakeDriver) RemoveStale(context.Context, []*poll.Item) (int, error) { return 0, nil }

func (f *fakeDriver) PollLock(it *poll.Item) *plan.PollLock {
	return &plan.PollLock{ID: "p1", Driver: "fake-poll", Property: it.ID}
}

func (f *fakeDriver) Usage() poll.Usage { return poll.Usage{} }

func (f *fakeDriver) Capabilities() poll.Capabilities { return poll.Capabilities{} }

var t0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

// item builds an item with one human comment per text at t0+1s, +2s, ...
func item(id string, texts ...string) *poll.Item {
	it := &poll.Item{ID: id, Base: poll.Checkpoint{At: t0}, Cutoff: t0.Add(time.Duration(len(texts)) * time.Second)}
	for i, text := range texts {
		cmd, instr := event.ParseCommand(text)
		ev := &event.Event{Repo: "acme/platform",
			Entity:     event.Entity{Kind: event.KindWorkItem, ID: 1, Key: id, URL: "https://jira.example/browse/" + id},
			Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: text, Command: cmd, Instruction: instr}},
			Actor:      event.Actor{ID: "u", Kind: event.ActorHuman, Role: "write"},
			State:      event.State{Labels: []string{}}, Source: event.Source{System: event.SystemJira, RawType: "comment"}}
		it.Changes = append(it.Changes, poll.Change{At: t0.Add(time.Duration(i+1) * time.Second), Event: ev})
	}
	return it
}

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

// fakeOut records runs; fail lists harnesses whose runs fail; short drops
// the last result.
type fakeOut struct {
	mu    sync.Mutex
	runs  []plan.Run
	fail  map[string]bool
	short bool
}

func (o *fakeOut) Name() string { return "fake-out" }

func (o *fakeOut) Dispatch(_ context.Context, runs []plan.Run) []output.Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	var res []output.Result
	for _, r := range runs {
		if o.fail[r.Harness] {
			res = append(res, output.Result{Run: r, Err: errors.New("boom")})
			continue
		}
		o.runs = append(o.runs, r)
		res = append(res, output.Result{Run: r, Ref: &plan.Ref{Driver: "fake-out", ID: r.Harness}})
	}
	if o.short {
		res = res[:len(res)-1]
	}
	return res
}
