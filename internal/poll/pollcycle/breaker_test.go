package pollcycle_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
)

// breakerCore decides like fakeCore and admits through a real core engine
// with a breaker on a fake clock.
type breakerCore struct {
	fakeCore
	e *core.Engine
}

func (c breakerCore) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return c.e.Admit(runs) }
func (c breakerCore) Refund(runs []plan.Run)                               { c.e.Refund(runs) }

// keepingDriver is fakeDriver with a checkpoint that persists between
// cycles: an item is eligible while it has a change after its checkpoint.
type keepingDriver struct {
	fakeDriver
	mu   sync.Mutex
	base poll.Checkpoint
	all  *poll.Item
}

func (d *keepingDriver) Discover(context.Context) (*poll.Discovery, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	it := *d.all
	it.Base = d.base
	if !it.Cutoff.After(it.Base.Min()) {
		return &poll.Discovery{Candidates: 1}, nil
	}
	return &poll.Discovery{Candidates: 1, Eligible: []*poll.Item{&it}}, nil
}

func (d *keepingDriver) Advance(_ context.Context, it *poll.Item, cp poll.Checkpoint) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.base = cp
	return nil
}

// A failing output must not use up the per-scope budget: gha-dispatch
// answering 500 seven times (limit 6 per hour), then recovering, gets the
// change dispatched exactly once after the recovery.
func TestFailedDispatchesDoNotUseTheBreakerBudget(t *testing.T) {
	var mu sync.Mutex
	calls, fails := 0, 7
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodGet { // the intent lookup: no run was started by a failed dispatch
			_, _ = w.Write([]byte(`{"total_count":0,"workflow_runs":[]}`))
			return
		}
		calls++
		if calls <= fails {
			http.Error(w, `{"message":"boom"}`, http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	out, err := ghadispatch.New(ghadispatch.Options{APIURL: srv.URL, Token: "t", Repo: "acme/platform", Ref: "main",
		MaxRetries: -1, Timeout: 5 * time.Second, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	eng, err := core.New(core.Options{Breaker: core.NewBreakerClock(6, func() time.Time { return now })})
	if err != nil {
		t.Fatal(err)
	}
	d := &keepingDriver{all: item("P-1", "/run"), base: poll.Checkpoint{At: t0}}
	dispatched := 0
	for cycle := range 12 {
		// IntentSettle off: the failed dispatches' intents are asked about
		// at once (their settling is tested in crash_test.go).
		res, _ := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Core: breakerCore{e: eng}, Output: out,
			JitterMax: -1, Rand: rngFor(cycle), IntentSettle: -1, Now: func() time.Time { return now }})
		dispatched += res.Stats.DispatchesScheduled
		if res.Stats.RunsRateLimited > 0 {
			t.Errorf("cycle %d: %d runs held back by the breaker after failed dispatches", cycle+1, res.Stats.RunsRateLimited)
		}
		now = now.Add(time.Minute)
	}
	if dispatched != 1 {
		t.Errorf("dispatched %d times, want once after the output recovered", dispatched)
	}
	if calls != fails+1 {
		t.Errorf("output called %d times, want %d failures then one success", calls, fails)
	}
}

// A change held back by the breaker is deferred, not dropped: its
// checkpoint stays, and it is dispatched once the window allows.
func TestRateLimitedChangeIsDeferred(t *testing.T) {
	now := t0
	eng, err := core.New(core.Options{Breaker: core.NewBreakerClock(1, func() time.Time { return now })})
	if err != nil {
		t.Fatal(err)
	}
	d := &keepingDriver{all: item("P-1", "/run one", "/run two"), base: poll.Checkpoint{At: t0}}
	o := &fakeOut{}
	run := func() poll.CycleStats {
		res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Core: breakerCore{e: eng}, Output: o, JitterMax: -1, Rand: rngFor(0)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Stats
	}
	// The first cycle sees only the first comment (cutoff), the second the other.
	d.all.Cutoff = t0.Add(time.Second)
	if st := run(); st.DispatchesScheduled != 1 {
		t.Fatalf("first cycle dispatched %d", st.DispatchesScheduled)
	}
	d.all.Cutoff = t0.Add(2 * time.Second)
	now = now.Add(10 * time.Minute)
	if st := run(); st.DispatchesScheduled != 0 || st.RunsRateLimited != 1 {
		t.Fatalf("second cycle: scheduled %d rate limited %d, want 0 and 1", st.DispatchesScheduled, st.RunsRateLimited)
	}
	if !d.base.At.Equal(t0.Add(time.Second)) {
		t.Fatalf("checkpoint moved to %v past the deferred change", d.base.At)
	}
	now = now.Add(time.Hour)
	if st := run(); st.DispatchesScheduled != 1 {
		t.Fatalf("after the window: scheduled %d, want the deferred change", st.DispatchesScheduled)
	}
	if len(o.Runs) != 2 || o.Runs[1].Event.Transition.Comment.Body != "/run two" {
		t.Errorf("runs %d, want both comments dispatched once each", len(o.Runs))
	}
}

func rngFor(seed int) *rand.Rand { return rand.New(rand.NewPCG(uint64(seed), 1)) }
