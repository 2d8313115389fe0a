package gitlabpipeline

import (
	"context"
	"testing"
	"time"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestDuplicateWaiters: two pipelines of one change wait behind a
// running one, the later left unsettled (its dispatcher died, or has not
// settled yet), and GitLab hands the resource to either first (the
// driver's newest_first hands it to the later one). Whichever acquires
// first, and whenever the earlier pipeline's dispatcher settles, the
// change's agent runs exactly once: the earlier pipeline runs it, the
// later one exits at its start.
func TestDuplicateWaiters(t *testing.T) {
	cases := []struct {
		name string
		mode string
		late bool // the earlier pipeline's dispatcher settles after the first holder's job ended
	}{
		{"newest first, the later pipeline's dispatcher died", gitlabsim.ModeNewestFirst, false},
		{"oldest first, the later pipeline's dispatcher died", gitlabsim.ModeOldestFirst, false},
		{"newest first, the earlier pipeline settled late", gitlabsim.ModeNewestFirst, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, gitlabsim.Options{ProcessMode: tc.mode})
			d := e.driver(t)
			at := time.Now().Add(-time.Minute).Truncate(time.Second)
			active, change := noteRun(100, at.Add(-time.Minute)), noteRun(101, at)
			pa := createUnsettled(t, e, active)
			first, dup := createUnsettled(t, e, change), createUnsettled(t, e, change)
			agents := 0
			job := func(id int64, r plan.Run) { // the agent job: its start-up check, then the agent
				t.Helper()
				p, _ := e.sim.Pipeline(id)
				if err := e.sim.StartJob(p.JobID); err != nil {
					t.Fatal(err)
				}
				over, err := d.Superseded(context.Background(), glapi.ResourceKey(r.Key), id, r.WorkItem.IdempotencyKey)
				if err != nil {
					t.Fatal(err)
				}
				if over == 0 {
					agents++
				}
				if err := e.sim.FinishJob(p.JobID, gitlabsim.StatusSuccess); err != nil {
					t.Fatal(err)
				}
			}
			job(pa, active)
			for round := range 2 { // each waiter acquires in turn, in the group's process mode
				if round == 1 && tc.late {
					name := glapi.PipelineName(glapi.ResourceKey(change.Key))
					if _, err := Settle(context.Background(), d.gl, testProject, name, change.WorkItem.IdempotencyKey, first); err != nil {
						t.Fatal(err)
					}
				}
				var holders []int64
				for _, id := range []int64{first, dup} {
					if p, _ := e.sim.Pipeline(id); p.Status == gitlabsim.StatusPending {
						holders = append(holders, id)
					}
				}
				if len(holders) != 1 {
					if p, _ := e.sim.Pipeline(first); p.Status == gitlabsim.StatusCanceled {
						t.Fatalf("the late settle cancelled pipeline %d, the one its change's other pipeline yielded to", first)
					}
					t.Fatalf("pipelines %v of the change hold the resource, want one", holders)
				}
				job(holders[0], change)
			}
			if agents != 1 {
				t.Fatalf("the change's agent ran %d times, want once", agents)
			}
		})
	}
}

// createUnsettled creates r's pipeline as a dispatcher that has not
// settled it (or died before) leaves it, and returns its id.
func createUnsettled(t *testing.T, e *env, r plan.Run) int64 {
	t.Helper()
	vars := map[string]string{}
	for _, v := range Variables(r) {
		vars[v[0]] = v[1]
	}
	p, err := e.sim.CreatePipeline(testProject, "main", vars)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}
