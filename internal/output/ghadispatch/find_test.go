package ghadispatch

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

var _ poll.DispatchFinder = (*Driver)(nil)

// clock is the emulator's settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// keyed is run with its idempotency key for a change at changeAt.
func keyed(run plan.Run, changeAt time.Time) plan.Run {
	run.WorkItem.IdempotencyKey = changepos.KeyAt(string(run.Key), changeAt)
	return run
}

func TestFindDispatched(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	other := func(t testing.TB) plan.Run {
		r := jiraRun(t)
		r.Harness, r.Key = "code", scope.KeyOf("code", r.Event, "github")
		return r
	}
	cases := []struct {
		name   string
		before int // runs of another harness dispatched before ours (all after since)
		after  int // runs of another harness dispatched after ours
		since  time.Duration
		ours   bool // our run is dispatched
		want   bool
	}{
		{name: "dispatched: found", ours: true, want: true},
		{name: "never dispatched", before: 3, want: false},
		{name: "created before the intent", ours: true, since: 2 * time.Second, want: false},
		{name: "the intent's second counts", ours: true, since: 500 * time.Millisecond, want: true},
		{name: "found on a later page", ours: true, after: 230, want: true},
		{name: "other runs only, several pages", after: 230, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{t: t0}
			e := newEnv(t, githubsim.Options{Now: c.now})
			d := e.driver(t, nil)
			ctx := context.Background()
			run := keyed(jiraRun(t), t0.Add(-time.Minute))
			dispatch := func(r plan.Run, n int) {
				for range n {
					c.set(c.now().Add(time.Second))
					if res := d.Dispatch(ctx, []plan.Run{r}); res[0].Err != nil {
						t.Fatal(res[0].Err)
					}
				}
			}
			dispatch(other(t), tc.before)
			if tc.ours {
				dispatch(run, 1)
			}
			dispatch(other(t), tc.after)
			since := t0.Add(time.Duration(tc.before)*time.Second + tc.since)
			ref, found, err := d.FindDispatched(ctx, run, since)
			if err != nil || found != tc.want {
				t.Fatalf("found = %v, %v; want %v", found, err, tc.want)
			}
			if found && (ref.ID != "1001" || ref.Driver != Name || !strings.Contains(ref.URL, "/actions/runs/")) {
				t.Errorf("ref = %+v", ref)
			}
			if pages := e.sim.Calls(githubsim.EndpointWorkflowRuns); tc.after > 200 && !tc.want && pages != 3 {
				t.Errorf("%d list calls, want 3 pages", pages)
			}
		})
	}
}

// A failed listing is an error, never "not found": the poller must not
// dispatch again on a guess.
func TestFindDispatchedListFailure(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	d := e.driver(t, func(o *Options) { o.MaxRetries = -1 })
	e.sim.Inject(githubsim.Fault{Endpoint: githubsim.EndpointWorkflowRuns, Status: http.StatusInternalServerError, Message: "boom"})
	_, found, err := d.FindDispatched(context.Background(), keyed(jiraRun(t), time.Now()), time.Now())
	if err == nil || found || !strings.Contains(err.Error(), "listing runs of fullsend-run.yml") {
		t.Fatalf("found = %v, err = %v", found, err)
	}
}

// A run-name that shows the idempotency key matches by the key alone; the
// shipped run-name matches by harness and scope.
func TestMatchesTitle(t *testing.T) {
	from := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	run := keyed(jiraRun(t), from)
	key := run.WorkItem.IdempotencyKey
	cases := []struct {
		title   string
		created time.Time
		want    bool
	}{
		{Title(run), from, true}, // the shipped run-name
		{RunName("triage", string(run.Key)), from, true},
		{"fullsend triage " + key, from, true},
		{"fullsend triage " + key + "1", from, false}, // another change's key
		{RunName("code", string(run.Key)), from, false},
		{RunName("triage", string(run.Key)), from.Add(-time.Second), false},
	}
	if want := "fullsend triage " + key; Title(run) != want {
		t.Fatalf("Title = %q, want %q", Title(run), want)
	}
	// A run without a key (the event path) is titled and matched by scope.
	unkeyed := jiraRun(t)
	if Title(unkeyed) != RunName("triage", string(unkeyed.Key)) {
		t.Fatalf("Title without a key = %q", Title(unkeyed))
	}
	r := &gogithub.WorkflowRun{DisplayTitle: gogithub.Ptr(Title(unkeyed)), CreatedAt: &gogithub.Timestamp{Time: from}}
	if !matches(r, unkeyed, from) {
		t.Errorf("matches(%q) = false for the run it names", Title(unkeyed))
	}
	for _, tc := range cases {
		r := &gogithub.WorkflowRun{DisplayTitle: gogithub.Ptr(tc.title), CreatedAt: &gogithub.Timestamp{Time: tc.created}}
		if got := matches(r, run, from); got != tc.want {
			t.Errorf("matches(%q, %v) = %v, want %v", tc.title, tc.created, got, tc.want)
		}
	}
}
