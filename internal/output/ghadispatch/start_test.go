package ghadispatch

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestCheckStart: the run job's start-up check reads its run from the
// environment the run workflow sets, costs one run listing for a GitHub
// change and none otherwise, and says why a run is redundant; what it
// cannot read is an error (the run then proceeds), never a silent skip.
func TestCheckStart(t *testing.T) {
	e, _, poller := groupEnv(t)
	must(t, e.sim.AddWorkflow("acme/platform", githubsim.Workflow{File: "untitled.yml", Inputs: plan.Names,
		RunName: func(in map[string]string) string { return "fullsend " + in[plan.InAgent] }}))
	ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 7}}
	sk := scope.KeyOf("triage", ev, "github")
	change := changepos.Key(string(sk), changepos.Pos{At: time.Now().Add(-time.Minute), ID: 9})
	run := plan.Run{Harness: "triage", Event: ev, Key: sk, WorkItem: plan.WorkItem{IdempotencyKey: change}}
	ran := dispatchID(t, poller, run) // the change's first run, which ran
	must(t, e.sim.StartRun(ran))
	must(t, e.sim.CompleteRun(ran, githubsim.ConclusionSuccess))
	dup := dispatchUnsettled(t, poller, "fullsend-run.yml", run) // a second one GitHub started before its settle
	must(t, e.sim.StartRun(dup))
	untitled := dispatchUnsettled(t, poller, "untitled.yml", run)

	jira := run
	jira.Key = "triage:acme/platform:jira:work_item:7"
	jira.WorkItem.IdempotencyKey = changepos.KeyAt(string(jira.Key), time.Now())
	other := run
	other.WorkItem.IdempotencyKey = strings.Replace(change, ":7@", ":8@", 1)
	const wfRef = "acme/platform/.github/workflows/fullsend-run.yml@refs/heads/main"
	cases := []struct {
		name   string
		run    plan.Run
		id     int64
		ref    string // GITHUB_WORKFLOW_REF
		yield  bool
		errHas string
		lists  int // run listings
	}{
		{"outside GitHub Actions", run, 0, wfRef, false, "", 0},
		{"a Jira change: the poll lock serializes it", jira, dup, wfRef, false, "", 0},
		{"a run of a change another run ran", run, dup, wfRef, true, "", 1},
		{"the run that ran, re-checked", run, ran, wfRef, false, "", 1},
		{"a key of another scope", other, dup, wfRef, false, "is not of the run's scope", 0},
		{"no workflow file in GITHUB_WORKFLOW_REF", run, dup, "acme/platform@refs/heads/main", false, "names no workflow file", 0},
		{"a run-name without the key", run, untitled, "acme/platform/.github/workflows/untitled.yml@refs/heads/main", false,
			"run-name must show the idempotency key", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"GITHUB_API_URL": e.url, "GITHUB_TOKEN": testToken, "GITHUB_REPOSITORY": "acme/platform",
				"GITHUB_WORKFLOW_REF": tc.ref, "GITHUB_RUN_ATTEMPT": "1"}
			if tc.id != 0 {
				env["GITHUB_RUN_ID"] = strconv.FormatInt(tc.id, 10)
			}
			for k, v := range tc.run.Inputs() {
				env[plan.EnvVar(k)] = v
			}
			before := e.sim.Calls(githubsim.EndpointWorkflowRuns)
			yield, msg, err := CheckStart(context.Background(), func(k string) string { return env[k] }, Options{})
			if yield != tc.yield || (err == nil) != (tc.errHas == "") || err != nil && !strings.Contains(err.Error(), tc.errHas) {
				t.Fatalf("CheckStart = %v, %q, %v; want %v, error %q", yield, msg, err, tc.yield, tc.errHas)
			}
			if yield && !strings.Contains(msg, strconv.FormatInt(ran, 10)) {
				t.Errorf("message %q does not name run %d", msg, ran)
			}
			if n := e.sim.Calls(githubsim.EndpointWorkflowRuns) - before; n != tc.lists {
				t.Errorf("%d run listings, want %d", n, tc.lists)
			}
		})
	}
}

// dispatchUnsettled dispatches r's run of workflow wf without settling it
// (a dispatcher that died before, or whose run GitHub started first) and
// returns its id.
func dispatchUnsettled(t *testing.T, d *Driver, wf string, r plan.Run) int64 {
	t.Helper()
	in := map[string]any{}
	for k, v := range r.Inputs() {
		in[k] = v
	}
	yes := true
	det, _, err := d.client.Actions.CreateWorkflowDispatchEventByFileName(context.Background(), "acme", "platform", wf,
		gogithub.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: in, ReturnRunDetails: &yes})
	if err != nil || det.GetWorkflowRunID() == 0 {
		t.Fatalf("dispatch %s: %v", wf, err)
	}
	return det.GetWorkflowRunID()
}
