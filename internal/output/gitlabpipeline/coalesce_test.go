package gitlabpipeline

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// holderCancelled reports any cancellation of a job that held its resource.
func holderCancelled(e *env) []gitlabsim.CancelRecord {
	var bad []gitlabsim.CancelRecord
	for _, c := range e.sim.Cancels() {
		if c.PriorStatus != gitlabsim.StatusWaitingForResource && c.PriorStatus != gitlabsim.StatusCreated {
			bad = append(bad, c)
		}
	}
	return bad
}

func TestBurstLeavesOneNewestWaiter(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	first := mkRun("triage", 7, "event 0")
	active := dispatch1(t, d, first)
	p, _ := e.sim.Pipeline(active)
	if err := e.sim.StartJob(p.JobID); err != nil {
		t.Fatal(err)
	}
	var last int64
	for i := 1; i <= 10; i++ {
		last = dispatch1(t, d, mkRun("triage", 7, fmt.Sprintf("event %d", i)))
		if w := byStatus(e, first, gitlabsim.StatusWaitingForResource); len(w) != 1 || w[0].ID != last {
			t.Fatalf("after event %d: waiting pipelines %+v, want only %d", i, w, last)
		}
	}
	if p, _ := e.sim.Pipeline(active); p.Status != gitlabsim.StatusRunning {
		t.Fatalf("active pipeline is %s, want running", p.Status)
	}
	if got := len(byStatus(e, first, gitlabsim.StatusCanceled)); got != 9 {
		t.Errorf("cancelled pipelines = %d, want 9", got)
	}
	if bad := holderCancelled(e); len(bad) > 0 {
		t.Fatalf("cancelled a job holding the resource: %+v", bad)
	}
	survivor, _ := e.sim.Pipeline(last)
	if got := eventBody(t, survivor); got != "event 10" {
		t.Errorf("survivor carries %q, want the newest event", got)
	}
	if g, _ := e.sim.Group(testProject, glapi.GroupKey(glapi.ResourceKey(first.Key))); g.ProcessMode != gitlabsim.ModeNewestFirst {
		t.Errorf("process mode = %q, want newest_first", g.ProcessMode)
	}
	if n := e.sim.Calls("edit_resource_group"); n != 1 {
		t.Errorf("edit_resource_group calls = %d, want 1 (cached per driver)", n)
	}
	if err := e.sim.FinishJob(p.JobID, gitlabsim.StatusSuccess); err != nil {
		t.Fatal(err)
	}
	if s, _ := e.sim.Pipeline(last); s.Status != gitlabsim.StatusPending {
		t.Fatalf("survivor is %s after the active run finished, want pending (holding the resource)", s.Status)
	}
	if newer, err := d.Superseded(context.Background(), glapi.ResourceKey(first.Key), last, ""); err != nil || newer != 0 {
		t.Errorf("Superseded(survivor) = %d, %v; want 0", newer, err)
	}
}

func TestScopesDoNotInterfere(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	scopes := []plan.Run{mkRun("triage", 1, ""), mkRun("triage", 2, ""), mkRun("code", 1, "")}
	for round := 0; round < 4; round++ {
		for _, s := range scopes {
			r := mkRun(s.Harness, s.Event.Entity.ID, fmt.Sprintf("%s/%d round %d", s.Harness, s.Event.Entity.ID, round))
			dispatch1(t, d, r)
		}
	}
	for _, s := range scopes {
		hold := append(byStatus(e, s, gitlabsim.StatusPending), byStatus(e, s, gitlabsim.StatusRunning)...)
		wait := byStatus(e, s, gitlabsim.StatusWaitingForResource)
		if len(hold) != 1 || len(wait) != 1 {
			t.Fatalf("scope %s: %d holding, %d waiting; want 1 and 1", s.Key, len(hold), len(wait))
		}
		want := fmt.Sprintf("%s/%d round 3", s.Harness, s.Event.Entity.ID)
		if got := eventBody(t, wait[0]); got != want {
			t.Errorf("scope %s: waiter carries %q, want %q", s.Key, got, want)
		}
		if got := eventBody(t, hold[0]); got != fmt.Sprintf("%s/%d round 0", s.Harness, s.Event.Entity.ID) {
			t.Errorf("scope %s: holder carries %q, want round 0", s.Key, got)
		}
	}
	if bad := holderCancelled(e); len(bad) > 0 {
		t.Fatalf("cancelled a holder: %+v", bad)
	}
}

// runner models the agent job: it starts a pending job, performs the
// superseded check, and either exits early or does the work.
type runner struct {
	e      *env
	d      *Driver
	rk     string
	worked []int64 // pipelines whose agent ran
}

func (r *runner) start(t *testing.T, pipelineID int64) {
	t.Helper()
	p, _ := r.e.sim.Pipeline(pipelineID)
	if err := r.e.sim.StartJob(p.JobID); err != nil {
		t.Fatalf("start pipeline %d: %v", pipelineID, err)
	}
	newer, err := r.d.Superseded(context.Background(), r.rk, pipelineID, "")
	if err != nil {
		t.Fatalf("superseded check of %d: %v", pipelineID, err)
	}
	if newer != 0 {
		if err := r.e.sim.FinishJob(p.JobID, gitlabsim.StatusSuccess); err != nil {
			t.Fatalf("no-op exit of %d: %v", pipelineID, err)
		}
		return
	}
	r.worked = append(r.worked, pipelineID)
}

// acquireNext hands the free group to its next waiter and starts that
// pipeline's runner; it reports whether a job acquired.
func (r *runner) acquireNext(t *testing.T, group string) bool {
	t.Helper()
	jid, err := r.e.sim.Acquire(testProject, group)
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	if jid == 0 {
		return false
	}
	j, _ := r.e.sim.Job(jid)
	r.start(t, j.PipelineID)
	return true
}

// TestAcquireVersusCancelRace lets the holder finish and the next waiter
// acquire the resource at each point of the driver's list → jobs check →
// cancel sequence, with and without newest_first. In every case the agent
// runs exactly for the active event and the newest one, the superseded
// waiter never runs its agent, and the active run is never cancelled.
func TestAcquireVersusCancelRace(t *testing.T) {
	for _, mode := range []string{ProcessModeLeave, ProcessModeNewestFirst} {
		for _, at := range []string{"list_pipelines", "pipeline_jobs", "cancel_pipeline"} {
			t.Run(mode+"/acquire and start before "+at, func(t *testing.T) { raceCase(t, mode, at, true) })
			t.Run(mode+"/acquire before "+at, func(t *testing.T) { raceCase(t, mode, at, false) })
		}
	}
}

// raceCase runs one interleaving; with start false the job that acquires
// in the hook is picked up by its runner only after the driver finished.
func raceCase(t *testing.T, mode, at string, start bool) {
	e := newEnv(t, gitlabsim.Options{ManualAssign: true})
	e.opts.ProcessMode = mode
	d := e.driver(t)
	run := mkRun("triage", 9, "A")
	rk := glapi.ResourceKey(run.Key)
	group := glapi.GroupKey(rk)
	rn := &runner{e: e, d: d, rk: rk}
	a := dispatch1(t, d, run)
	if !rn.acquireNext(t, group) {
		t.Fatal("A did not acquire")
	}
	b := dispatch1(t, d, mkRun("triage", 9, "B"))
	fired, late := false, int64(0)
	e.sim.SetHook(at, func(*http.Request) {
		if fired {
			return
		}
		fired = true
		pa, _ := e.sim.Pipeline(a)
		if err := e.sim.FinishJob(pa.JobID, gitlabsim.StatusSuccess); err != nil {
			t.Errorf("finish A: %v", err)
		}
		if start {
			rn.acquireNext(t, group) // B or C acquires and starts while C already exists
			return
		}
		late, _ = e.sim.Acquire(testProject, group)
	})
	c := dispatch1(t, d, mkRun("triage", 9, "C"))
	e.sim.SetHook(at, nil)
	if !fired {
		t.Fatal("hook never ran")
	}
	if j, ok := e.sim.Job(late); ok && j.Status == gitlabsim.StatusPending {
		rn.start(t, j.PipelineID)
	}
	for rn.acquireNext(t, group) {
	}
	for _, rec := range e.sim.Cancels() {
		if rec.PipelineID != b {
			t.Fatalf("cancelled pipeline %d, only B=%d may be: %+v", rec.PipelineID, b, rec)
		}
	}
	// Only a cancel already on its way may hit a job that just acquired
	// the resource; before that, the jobs check keeps such a pipeline.
	if bad := holderCancelled(e); at != "cancel_pipeline" && len(bad) > 0 {
		t.Fatalf("cancelled a job that held the resource when checked: %+v", bad)
	}
	if pb, _ := e.sim.Pipeline(b); !gitlabsim.Finished(pb.Status) {
		t.Fatalf("B is %s, want finished (no-op exit or cancelled)", pb.Status)
	}
	if len(rn.worked) != 2 || rn.worked[0] != a || rn.worked[1] != c {
		t.Fatalf("agent ran for %v, want [A=%d C=%d]", rn.worked, a, c)
	}
}

// BenchmarkDispatchWithWaiter measures one dispatch (create, resource
// group check, list, jobs check, cancel) against the emulator while a run
// is active and an older pipeline waits.
func BenchmarkDispatchWithWaiter(b *testing.B) {
	e := newEnv(b, gitlabsim.Options{})
	d, err := New(e.opts)
	if err != nil {
		b.Fatal(err)
	}
	run := mkRun("triage", 1, "x")
	runs := []plan.Run{run}
	d.Dispatch(context.Background(), runs)
	b.ResetTimer()
	for b.Loop() {
		if r := d.Dispatch(context.Background(), runs); r[0].Err != nil {
			b.Fatal(r[0].Err)
		}
	}
}
