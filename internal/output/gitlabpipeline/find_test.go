package gitlabpipeline

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

var _ poll.DispatchFinder = (*Driver)(nil)

func withKey(r plan.Run, at time.Time) plan.Run {
	r.WorkItem.IdempotencyKey = changepos.KeyAt(string(r.Key), at)
	return r
}

func TestFindDispatched(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	ours := withKey(mkRun("triage", 42, "/fs-triage"), t0)
	cases := []struct {
		name  string
		runs  []plan.Run // dispatched in order, one second apart, starting at t0+1s
		since time.Duration
		want  bool
	}{
		{name: "dispatched", runs: []plan.Run{ours}, want: true},
		{name: "never dispatched", want: false},
		{name: "an older change of the scope only", runs: []plan.Run{withKey(mkRun("triage", 42, "/fs-triage"), t0.Add(-time.Hour))}, want: false},
		{name: "a newer change of the scope after ours", runs: []plan.Run{ours, withKey(mkRun("triage", 42, "/fs-triage"), t0.Add(time.Hour))}, want: true},
		{name: "created before the intent", runs: []plan.Run{ours}, since: 5 * time.Second, want: false},
		{name: "another scope", runs: []plan.Run{withKey(mkRun("triage", 43, "/fs-triage"), t0)}, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var secs atomic.Int64 // the emulator's clock: t0 plus this many seconds
			e := newEnv(t, gitlabsim.Options{Now: func() time.Time { return t0.Add(time.Duration(secs.Load()) * time.Second) }})
			d := e.driver(t)
			for _, r := range tc.runs {
				secs.Add(1)
				dispatch1(t, d, r)
			}
			ref, found, err := d.FindDispatched(context.Background(), ours, t0.Add(tc.since))
			if err != nil || found != tc.want {
				t.Fatalf("found = %v, %v; want %v", found, err, tc.want)
			}
			if found && (ref.Driver != Name || ref.ID == "" || !strings.Contains(ref.URL, "/-/pipelines/")) {
				t.Errorf("ref = %+v", ref)
			}
		})
	}
}

// A failed read is an error, never "not found".
func TestFindDispatchedReadFailure(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	run := withKey(mkRun("triage", 42, "/fs-triage"), time.Now())
	dispatch1(t, d, run)
	e.sim.InjectFault(gitlabsim.Fault{Endpoint: "pipeline_variables", Status: 500, Times: 10})
	if _, found, err := d.FindDispatched(context.Background(), run, time.Now().Add(-time.Minute)); err == nil || found {
		t.Fatalf("found = %v, err = %v", found, err)
	}
}
