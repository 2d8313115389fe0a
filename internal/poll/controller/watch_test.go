package controller_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/controller"
)

// flakyInput fails to read its account (the tracker unreachable) failures
// times, then succeeds.
func flakyInput(failures int) *fakeInput {
	var mu sync.Mutex
	return &fakeInput{d: &fakeDriver{}, accountFn: func() (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if failures > 0 {
			failures--
			return "", errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
		}
		return "bot", nil
	}}
}

// watchController builds a watching controller over in; its Sleep records
// each wait and ends the watch after stopAfter waits.
func watchController(t *testing.T, in *fakeInput, o controller.Options, stopAfter int) (*controller.Controller, context.Context, *[]time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var waits []time.Duration
	o.Watch, o.Interval = true, time.Second
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		if waits = append(waits, d); len(waits) >= stopAfter {
			cancel()
		}
		return ctx.Err()
	}
	c, err := newController(t, "false", in, o, func() output.Driver { return &fakeOut{} })
	if err != nil {
		t.Fatal(err)
	}
	return c, ctx, &waits
}

// A watch whose tracker refuses connections at start backs off like any
// failing cycle (2s, 4s, 8s … capped at 10 intervals), reports each failed
// start to the observer, and resets to the interval after a good cycle.
func TestWatchBadStartBacksOff(t *testing.T) {
	in := flakyInput(5)
	var mu sync.Mutex
	var results []string
	obs := func(s poll.CycleStats) {
		mu.Lock()
		defer mu.Unlock()
		results = append(results, map[bool]string{true: "error", false: "ok"}[s.Error != ""])
	}
	c, ctx, waits := watchController(t, in, controller.Options{Observer: obs}, 7)
	if err := c.Run(ctx); err != nil {
		t.Fatalf("Run = %v, want nil after the stop", err)
	}
	s := time.Second
	want := []time.Duration{2 * s, 4 * s, 8 * s, 10 * s, 10 * s, s, s}
	if strings.Join(durations(*waits), " ") != strings.Join(durations(want), " ") {
		t.Errorf("waits %v, want %v", *waits, want)
	}
	if got := strings.Join(results, " "); got != "error error error error error ok ok" {
		t.Errorf("observed %s", got)
	}
}

// Credentials the tracker refuses are the operator's configuration: the
// watch ends at once with that error (exit 2), without backing off.
func TestWatchRefusedCredentialsEnd(t *testing.T) {
	refused := config.Invalid(errors.New("refused the credentials"))
	in := &fakeInput{d: &fakeDriver{}, account: refused}
	c, ctx, waits := watchController(t, in, controller.Options{}, 3)
	if err := c.Run(ctx); !errors.Is(err, refused) || !config.IsInvalid(err) || len(*waits) != 0 {
		t.Fatalf("Run = %v after waits %v, want the refusal at once", err, *waits)
	}
}

// A cycle that overruns its deadline stops, releases the locks it holds
// without runs, and fails; its stats say so.
func TestCycleDeadline(t *testing.T) {
	in := &fakeInput{d: &fakeDriver{Items: []*poll.Item{item("PROJ-1", "/run")}, Hang: true}}
	var stats []poll.CycleStats
	out := &fakeOut{}
	c, err := newController(t, "false", in, controller.Options{CycleTimeout: 20 * time.Millisecond,
		Observer: func(s poll.CycleStats) { stats = append(stats, s) }}, func() output.Driver { return out })
	if err != nil {
		t.Fatal(err)
	}
	err = c.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "exceeded its deadline of 20ms") {
		t.Fatalf("Run = %v, want the deadline error", err)
	}
	if w := strings.Join(in.d.Writes(), ","); w != "lock PROJ-1 1,release PROJ-1" || len(out.Runs) != 0 {
		t.Errorf("writes %s, runs %d: want the lock taken and released, nothing dispatched", w, len(out.Runs))
	}
	if len(stats) != 1 || !strings.Contains(stats[0].Error, "deadline") {
		t.Errorf("stats %+v, want one failed cycle", stats)
	}
}

// The cycle deadline defaults to 80% of the interval (at least 10s) with
// --watch and to 4m
// otherwise; an option beats poll.cycle_timeout.
func TestCycleTimeoutDefaults(t *testing.T) {
	cases := []struct {
		o    controller.Options
		want time.Duration
	}{
		{controller.Options{}, 4 * time.Minute},
		{controller.Options{Watch: true, Interval: time.Minute}, 48 * time.Second},
		{controller.Options{Watch: true, Interval: time.Second}, 10 * time.Second},
		{controller.Options{Watch: true, Interval: time.Minute, CycleTimeout: 10 * time.Second}, 10 * time.Second},
	}
	for _, tc := range cases {
		c, err := newController(t, "false", &fakeInput{d: &fakeDriver{}}, tc.o, func() output.Driver { return &fakeOut{} })
		if err != nil {
			t.Fatal(err)
		}
		if got := c.CycleTimeout(); got != tc.want {
			t.Errorf("%+v: cycle timeout %s, want %s", tc.o, got, tc.want)
		}
	}
	if err := controller.CheckOptions(controller.Options{Watch: true, Interval: time.Second, CycleTimeout: 2 * time.Second}); !config.IsInvalid(err) {
		t.Errorf("a cycle timeout above the interval: %v, want a usage error", err)
	}
}

func durations(ds []time.Duration) []string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return s
}

// freshDriver offers a fresh item with one /run comment every cycle.
type freshDriver struct{ fakeDriver }

func (f *freshDriver) Discover(context.Context) (*poll.Discovery, error) {
	return &poll.Discovery{Candidates: 1, Eligible: []*poll.Item{item("PROJ-1", "/run")}}, nil
}

// refusing answers the first n dispatches with err, then starts runs.
type refusing struct {
	fakeOut
	n   int
	err error
}

func (o *refusing) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	o.Mu.Lock()
	if o.n > 0 {
		o.n--
		o.Mu.Unlock()
		res := make([]output.Result, len(runs))
		for i, r := range runs {
			res[i] = output.Result{Run: r, Err: o.err}
		}
		return res
	}
	o.Mu.Unlock()
	return o.fakeOut.Dispatch(ctx, runs)
}

// Under --watch, a cycle whose only failures are refused dispatches
// (output.ErrNotStarted) does not back off: the next cycle, one interval
// later, dispatches again. Eight refusals, then the platform recovers: the
// run starts 8 s after the first cycle. Any other dispatch failure still
// backs off.
func TestWatchRetriesRefusedDispatchesAtTheInterval(t *testing.T) {
	s := time.Second
	tests := []struct {
		name    string
		err     error
		refused bool
		want    []time.Duration
	}{
		{"refused", fmt.Errorf("HTTP 422 (%w)", output.ErrNotStarted), true, []time.Duration{s, s, s, s, s, s, s, s}},
		{"unknown outcome", errors.New("answer was not the platform's"), false, []time.Duration{2 * s, 4 * s, 8 * s, 10 * s, 10 * s, 10 * s, 10 * s, 10 * s}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &fakeInput{d: &fakeDriver{}, drv: &freshDriver{}}
			out := &refusing{n: 8, err: tc.err}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var waits []time.Duration
			var startedAfter time.Duration
			o := controller.Options{Watch: true, Interval: s, Sleep: func(ctx context.Context, d time.Duration) error {
				out.Mu.Lock()
				started := len(out.Runs) > 0
				out.Mu.Unlock()
				if started || len(waits) == 20 {
					cancel()
					return ctx.Err()
				}
				waits = append(waits, d)
				startedAfter += d
				return nil
			}}
			c, err := newController(t, "false", in, o, func() output.Driver { return out })
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Run(ctx); err != nil {
				t.Fatal(err)
			}
			if strings.Join(durations(waits), " ") != strings.Join(durations(tc.want), " ") {
				t.Errorf("waits %v, want %v", waits, tc.want)
			}
			if len(out.Runs) != 1 {
				t.Errorf("%d runs, want 1", len(out.Runs))
			}
			t.Logf("run started %s after the first cycle", startedAfter)
			if tc.refused && startedAfter > 30*time.Second {
				t.Errorf("run started %s after the first cycle, want within 30s", startedAfter)
			}
		})
	}
}

// Watch backs off after failures, resets after a success and returns nil
// when its context ends.
func TestWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	results := []error{errors.New("a"), errors.New("b"), nil, errors.New("c")}
	var waits []time.Duration
	calls := 0
	err := controller.Watch(ctx, controller.WatchOptions{Interval: time.Second, Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		if len(waits) == len(results) {
			cancel()
			return context.Canceled
		}
		return nil
	}}, func(context.Context) error {
		calls++
		return results[calls-1]
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{2 * time.Second, 4 * time.Second, time.Second, 2 * time.Second}
	if fmt.Sprint(waits) != fmt.Sprint(want) || calls != 4 {
		t.Errorf("waits = %v (calls %d), want %v", waits, calls, want)
	}
}
