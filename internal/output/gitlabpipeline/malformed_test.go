package gitlabpipeline

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestMalformedAnswerIsAnError: a pipeline listing holding a null where
// a pipeline should be fails the settle and the superseded check with an
// error (the created pipeline is kept: nothing is cancelled on a listing
// that cannot be read), and a creation answered malformed is a failed
// dispatch whose outcome is unknown, not a refusal.
func TestMalformedAnswerIsAnError(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	run := mkRun("triage", 7, "/fs-triage")
	run.Key = scope.KeyOf("triage", run.Event, "gitlab")
	run.WorkItem.IdempotencyKey = changepos.KeyAt(string(run.Key), time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC))
	first := dispatch1(t, d, run)
	rk := glapi.ResourceKey(run.Key)
	listings := []struct{ name, body string }{
		{"a null pipeline", `[null]`},
		{"a null pipeline after a good one", `[{"id":1,"status":"running"},null]`},
		{"not a listing", `null`},
	}
	for _, l := range listings {
		e.sim.InjectFault(gitlabsim.Fault{Endpoint: "list_pipelines", Status: 200, Body: l.body})
		kept, err := Settle(ctx, d.gl, testProject, glapi.PipelineName(rk), run.WorkItem.IdempotencyKey, first+1)
		if !errors.Is(err, glapi.ErrMalformed) || !kept {
			t.Errorf("settle, listing answered with %s: kept %v, err %v; want kept and a malformed answer", l.name, kept, err)
		}
		e.sim.InjectFault(gitlabsim.Fault{Endpoint: "list_pipelines", Status: 200, Body: l.body})
		if _, err := d.Superseded(ctx, rk, first, run.WorkItem.IdempotencyKey); !errors.Is(err, glapi.ErrMalformed) {
			t.Errorf("superseded check, listing answered with %s: err %v; want a malformed answer", l.name, err)
		}
	}
	if p, _ := e.sim.Pipeline(first); p.Status == gitlabsim.StatusCanceled {
		t.Errorf("pipeline %d was cancelled on a listing that could not be read", first)
	}
	e.sim.InjectFault(gitlabsim.Fault{Endpoint: "create_pipeline", Status: 201, Body: `[null]`, AfterProcess: true})
	res := d.Dispatch(ctx, []plan.Run{mkRun("review", 8, "/fs-review")})
	if err := res[0].Err; !errors.Is(err, glapi.ErrMalformed) || errors.Is(err, output.ErrNotStarted) {
		t.Errorf("creation answered malformed: err %v; want a malformed answer whose outcome is unknown", err)
	}
}
