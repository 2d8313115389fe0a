package ghadispatch

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestDispatchSettles: a second dispatch of a GitHub change's key is
// cancelled by its own dispatcher; one whose earlier run was cancelled is
// kept; a Jira key is never settled.
func TestDispatchSettles(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	d := e.driver(t, func(o *Options) { o.Ref = "main" })
	ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 7}}
	sk := scope.KeyOf("triage", ev, "github")
	run := plan.Run{Harness: "triage", Event: ev, Key: sk,
		WorkItem: plan.WorkItem{IdempotencyKey: changepos.KeyAt(string(sk), time.Now().Add(-time.Minute))}}
	dispatch := func(r plan.Run) int64 { return dispatchID(t, d, r) }
	status := func(id int64) string {
		r, _ := e.sim.Run(id)
		return r.Conclusion
	}
	first, second := dispatch(run), dispatch(run)
	if status(first) == githubsim.ConclusionCancelled || status(second) != githubsim.ConclusionCancelled {
		t.Fatalf("first run %q, second %q; want the second cancelled", status(first), status(second))
	}
	must(t, e.sim.CompleteRun(first, githubsim.ConclusionCancelled)) // cancelled by a person
	if third := dispatch(run); status(third) == githubsim.ConclusionCancelled {
		t.Fatal("a dispatch whose only other live run was cancelled cancelled itself")
	}
	jira := run
	jira.Key = "triage:acme/platform:jira:work_item:7"
	jira.WorkItem.IdempotencyKey = changepos.KeyAt(string(jira.Key), time.Now())
	a, b := dispatch(jira), dispatch(jira)
	if status(a) != "" || status(b) != "" {
		t.Fatalf("Jira key runs %q, %q: want both left alone", status(a), status(b))
	}
}

// dispatchID dispatches r with d and returns its run id.
func dispatchID(t *testing.T, d *Driver, r plan.Run) int64 {
	t.Helper()
	res := d.Dispatch(context.Background(), []plan.Run{r})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	id, _ := strconv.ParseInt(res[0].Ref.ID, 10, 64)
	return id
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// groupEnv is an emulator whose run workflow has the generated
// workflow's concurrency group (fullsend-run- and the scope key,
// cancel-in-progress: false), and two drivers: the webhook path's and a
// poller's.
func groupEnv(t *testing.T) (e *env, webhook, poller *Driver) {
	t.Helper()
	e = newEnv(t, githubsim.Options{})
	must(t, e.sim.AddWorkflow("acme/platform", githubsim.Workflow{File: "fullsend-run.yml", Inputs: plan.Names,
		Concurrency: func(in map[string]string) string { return ghactions.CallerPrefix + in[plan.InSerializationKey] }}))
	ref := func(o *Options) { o.Ref = "main" }
	return e, e.driver(t, ref), e.driver(t, ref)
}

// TestOlderChangeDispatchedLast: the webhook path dispatched a newer
// change's run; a poller then dispatches an older change of the same
// scope (it read the item before the newer change). Whatever GitHub's
// concurrency group does with the older run, the run that waits carries
// the newest change, and the older change's run is cancelled (the newer
// one covers it). Changes of one second are told apart by their ids.
func TestOlderChangeDispatchedLast(t *testing.T) {
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	older, newer := changepos.Pos{At: at, ID: 100}, changepos.Pos{At: at, ID: 200}
	cases := []struct {
		name   string
		active bool // a run of the scope is in progress when both are dispatched
	}{
		{"behind an active run: GitHub cancels the newer pending run", true},
		{"nothing active: the newer run holds the group", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, webhook, poller := groupEnv(t)
			ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 7}}
			sk := scope.KeyOf("triage", ev, "github")
			runOf := func(p changepos.Pos) plan.Run {
				return plan.Run{Harness: "triage", Event: ev, Key: sk,
					WorkItem: plan.WorkItem{IdempotencyKey: changepos.Key(string(sk), p)}}
			}
			dispatch := func(d *Driver, r plan.Run) int64 { return dispatchID(t, d, r) }
			if tc.active {
				must(t, e.sim.StartRun(dispatch(webhook, runOf(changepos.Pos{At: at.Add(-time.Minute)}))))
			}
			b := dispatch(webhook, runOf(newer))
			a := dispatch(poller, runOf(older))
			rb, _ := e.sim.Run(b)
			ra, _ := e.sim.Run(a)
			if rb.Status == githubsim.StatusCompleted {
				t.Fatalf("the newer change's run %d ended %s; want it waiting (the pending run carries the newest change)", b, rb.Conclusion)
			}
			if ra.Conclusion != githubsim.ConclusionCancelled {
				t.Errorf("the older change's run %d is %s %s; want it cancelled", a, ra.Status, ra.Conclusion)
			}
			want := githubsim.StatusQueued
			if tc.active {
				want = githubsim.StatusPending
			}
			if rb.Status != want {
				t.Errorf("the newer change's run is %s, want %s", rb.Status, want)
			}
		})
	}
}

// TestOlderThanTheActiveRunDispatchedLast: a run of change m is active,
// the newest change n's run waits behind it, and a poller then dispatches
// a change o no newer than m (older, or m itself again). GitHub's
// concurrency group cancels n's pending run for o's; o's dispatcher
// cancels its own run (m's run covers o, or is o's change's first run)
// and re-runs n's, which no live run covers.
func TestOlderThanTheActiveRunDispatchedLast(t *testing.T) {
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	for _, tc := range []struct {
		name string
		o    int64 // o's change id; m is 200, n 300, all in one second
	}{
		{"an older change", 100},
		{"the active run's own change again", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, webhook, poller := groupEnv(t)
			ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 7}}
			sk := scope.KeyOf("triage", ev, "github")
			runOf := func(id int64) plan.Run {
				return plan.Run{Harness: "triage", Event: ev, Key: sk,
					WorkItem: plan.WorkItem{IdempotencyKey: changepos.Key(string(sk), changepos.Pos{At: at, ID: id})}}
			}
			m := dispatchID(t, webhook, runOf(200))
			must(t, e.sim.StartRun(m))
			n := dispatchID(t, webhook, runOf(300))
			o := dispatchID(t, poller, runOf(tc.o))
			rn, _ := e.sim.Run(n)
			ro, _ := e.sim.Run(o)
			if rn.Status != githubsim.StatusPending || rn.Attempt != 2 {
				t.Errorf("the newest change's run %d is %s %s (attempt %d); want it re-run, pending", n, rn.Status, rn.Conclusion, rn.Attempt)
			}
			if ro.Conclusion != githubsim.ConclusionCancelled {
				t.Errorf("run %d of change %d is %s %s; want it cancelled", o, tc.o, ro.Status, ro.Conclusion)
			}
		})
	}
}
