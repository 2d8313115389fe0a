package ghadispatch

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestSurvivor: the oldest started run, else the oldest; cancelled runs
// never count.
func TestSurvivor(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	q := func(id int64, s int) KeyRun {
		return KeyRun{ID: id, CreatedAt: t0.Add(time.Duration(s) * time.Second), Status: "queued"}
	}
	started := func(r KeyRun) KeyRun { r.Status = "in_progress"; return r }
	cancelled := func(r KeyRun) KeyRun { r.Status, r.Cancelled = "completed", true; return r }
	cases := []struct {
		name string
		runs []KeyRun
		want int64
		ok   bool
	}{
		{"none", nil, 0, false},
		{"all cancelled", []KeyRun{cancelled(q(1, 0)), cancelled(q(2, 1))}, 0, false},
		{"oldest queued", []KeyRun{q(3, 2), q(1, 0), q(2, 1)}, 1, true},
		{"same second: lowest id", []KeyRun{q(5, 0), q(4, 0)}, 4, true},
		{"started beats older queued", []KeyRun{q(1, 0), started(q(2, 1)), q(3, 2)}, 2, true},
		{"oldest of the started", []KeyRun{started(q(3, 2)), started(q(2, 1)), q(1, 0)}, 2, true},
		{"cancelled older ignored", []KeyRun{cancelled(q(1, 0)), q(2, 1)}, 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Survivor(tc.runs)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("Survivor = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestDispatchSettles: a second dispatch of a GitHub change's key is
// cancelled by its own dispatcher; one whose earlier run was cancelled is
// kept; a Jira key is never settled.
func TestDispatchSettles(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	d := e.driver(t, func(o *Options) { o.Ref = "main" })
	ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 7}}
	sk := scope.KeyOf("triage", ev, "github")
	run := plan.Run{Harness: "triage", Event: ev, Key: sk,
		WorkItem: plan.WorkItem{IdempotencyKey: polllock.IdempotencyKey(string(sk), time.Now().Add(-time.Minute))}}
	dispatch := func(r plan.Run) int64 {
		t.Helper()
		res := d.Dispatch(context.Background(), []plan.Run{r})
		if res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
		id, _ := strconv.ParseInt(res[0].Ref.ID, 10, 64)
		return id
	}
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
	jira.WorkItem.IdempotencyKey = polllock.IdempotencyKey(string(jira.Key), time.Now())
	a, b := dispatch(jira), dispatch(jira)
	if status(a) != "" || status(b) != "" {
		t.Fatalf("Jira key runs %q, %q: want both left alone", status(a), status(b))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A scheduled run's key (scope key @ entity version) is carried by every
// attempt of the version: only the attempts not completed compete, so a
// retry survives the failed attempt before it and two pollers' duplicates
// of one attempt still settle to one.
func TestAttemptRuns(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	failed := KeyRun{ID: 1, CreatedAt: t0, Status: "completed"}
	cases := []struct {
		name string
		runs []KeyRun
		ours int64
		want int64
	}{
		{"retry after a failed attempt", []KeyRun{failed, {ID: 2, CreatedAt: t0.Add(time.Minute), Status: "queued"}}, 2, 2},
		{"two pollers' duplicates", []KeyRun{failed, {ID: 2, CreatedAt: t0.Add(time.Minute), Status: "queued"},
			{ID: 3, CreatedAt: t0.Add(time.Minute), Status: "queued"}}, 3, 2},
		{"ours listed as completed already", []KeyRun{{ID: 4, CreatedAt: t0, Status: "completed"}}, 4, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := Survivor(attemptRuns(tc.runs, tc.ours)); !ok || got != tc.want {
				t.Fatalf("survivor %d (%v), want %d", got, ok, tc.want)
			}
		})
	}
}
