package gitlabpipeline

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

func TestDispatchVariablesAndRef(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	run := mkRun("triage", 42, "hello")
	run.PollLock = &plan.PollLock{ID: "lock-1", Driver: "jira-poll", Property: "PROJ-1/fullsend.poll.acme.platform.lock"}
	run.Event.Entity.Key = "PROJ-1"
	run.WorkItem = plan.WorkItemOf(run.Event)
	res := d.Dispatch(context.Background(), []plan.Run{run})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	id, _ := strconv.ParseInt(res[0].Ref.ID, 10, 64)
	p, ok := e.sim.Pipeline(id)
	if !ok {
		t.Fatalf("pipeline %d not in emulator", id)
	}
	wantURL := strings.TrimSuffix(e.opts.APIURL, "/api/v4") + "/" + testProject + "/-/pipelines/" + res[0].Ref.ID
	if res[0].Ref.Driver != Name || res[0].Ref.URL != wantURL {
		t.Errorf("ref = %+v, want driver %s url %s", *res[0].Ref, Name, wantURL)
	}
	rk := glapi.ResourceKey(run.Key)
	want := map[string]string{
		glapi.VarAgent: "triage", glapi.VarRole: "triage", glapi.VarSourceRepo: "acme/platform", glapi.VarEventType: event.CommentAdded,
		glapi.VarSerializationKey: string(run.Key), glapi.VarResourceKey: rk,
		glapi.VarWorkItemURL: run.Event.Entity.URL, glapi.VarWorkItemSource: event.SystemGitHub, glapi.VarWorkItemKey: "PROJ-1",
		glapi.VarPollLockID: "lock-1", glapi.VarPollLockDriver: "jira-poll", glapi.VarPollLockProperty: run.PollLock.Property,
	}
	for k, v := range want {
		if p.Variables[k] != v {
			t.Errorf("variable %s = %q, want %q", k, p.Variables[k], v)
		}
	}
	raw, _ := base64.StdEncoding.DecodeString(p.Variables[glapi.VarEvent])
	var ev event.Event
	if err := json.Unmarshal(raw, &ev); err != nil || ev.Entity.Key != "PROJ-1" || ev.Transition.Comment.Body != "hello" {
		t.Errorf("FULLSEND_EVENT decodes to %+v, %v", ev, err)
	}
	if p.Name != "fullsend:"+rk || p.Ref != "main" {
		t.Errorf("pipeline name %q ref %q", p.Name, p.Ref)
	}
	if strings.ContainsAny(rk, ":/") || !strings.HasPrefix(rk, "triage_acme--platform_github_work_item_42") {
		t.Errorf("resource key %q", rk)
	}
}

// Only GitLab's confirmation (201 with a JSON pipeline) is a success; a
// definite refusal (a 4xx but 408 and 429) wraps output.ErrNotStarted;
// every other answer leaves the outcome unknown.
func TestCreateFailures(t *testing.T) {
	const notStarted, unknown = true, false
	tests := []struct {
		name      string
		fault     gitlabsim.Fault
		wantErr   string // "" means success
		refused   bool   // the error wraps output.ErrNotStarted
		wantCalls int    // create_pipeline requests
		wantPipes int    // pipelines that exist afterwards
	}{
		{"500 is not retried", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 500}, "pipeline may exist", unknown, 1, 0},
		{"502 after processing is reported, not repeated", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 502, AfterProcess: true}, "502", unknown, 1, 1},
		{"502 after processing says the pipeline may exist", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 502, AfterProcess: true}, "pipeline may exist", unknown, 1, 1},
		{"restricted pipeline variables explain the setting", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 400,
			Body: `{"message":{"base":["Insufficient permissions to set pipeline variables"]}}`}, "Minimum role to use pipeline variables", notStarted, 1, 0},
		{"timeout after sending is reported, not repeated", gitlabsim.Fault{Endpoint: "create_pipeline", AfterProcess: true, Delay: 3 * time.Second}, "timed out after sending", unknown, 1, 1},
		{"429 with Retry-After is retried", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 429, RetryAfter: "0"}, "", unknown, 2, 1},
		{"429 twice then success", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 429, Times: 2}, "", unknown, 3, 1},
		{"429 asking too long a wait fails at once", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 429, RetryAfter: "3600"}, "429", unknown, 1, 0},
		{"200 {} without a pipeline id is ambiguous, not recorded", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 200, Body: `{}`},
			"not its confirmation of a created pipeline (the pipeline may exist", unknown, 1, 0},
		{"201 {} after processing is reported, not repeated", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 201, Body: `{}`, AfterProcess: true},
			"not its confirmation", unknown, 1, 1},
		{"proxy HTML 200 after processing", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 200, Body: `<html>sign in</html>`, AfterProcess: true},
			"may exist", unknown, 1, 1},
		{"200 with a pipeline is not GitLab's 201", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 200, Body: `{"id":99,"web_url":"w"}`, AfterProcess: true},
			"answered 200, not 201", unknown, 1, 1},
		{"truncated pipeline JSON", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 201, Body: `{"id":9`, AfterProcess: true},
			"may exist", unknown, 1, 1},
		{"400 bad ref", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 400, Body: `{"message":{"base":["Reference not found"]}}`}, "Reference not found", notStarted, 1, 0},
		{"403 is a refusal", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 403}, "403", notStarted, 1, 0},
		{"404 is a refusal", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 404}, "404", notStarted, 1, 0},
		{"422 is a refusal", gitlabsim.Fault{Endpoint: "create_pipeline", Status: 422}, "422", notStarted, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, gitlabsim.Options{})
			e.opts.Timeout = 300 * time.Millisecond
			d := e.driver(t)
			e.sim.InjectFault(tc.fault)
			res := d.Dispatch(context.Background(), []plan.Run{mkRun("triage", 1, "x")})
			switch {
			case tc.wantErr == "" && res[0].Err != nil:
				t.Fatalf("unexpected error %v", res[0].Err)
			case tc.wantErr != "" && (res[0].Err == nil || !strings.Contains(res[0].Err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want containing %q", res[0].Err, tc.wantErr)
			case tc.wantErr != "" && res[0].Ref != nil:
				t.Fatalf("failed run has a ref %+v", res[0].Ref)
			case tc.wantErr != "" && errors.Is(res[0].Err, output.ErrNotStarted) != tc.refused:
				t.Fatalf("err = %v: wraps ErrNotStarted %v, want %v", res[0].Err, !tc.refused, tc.refused)
			}
			if res[0].Err != nil && strings.Contains(res[0].Err.Error(), e.opts.Token) {
				t.Fatalf("error leaks the token: %v", res[0].Err)
			}
			if n := e.sim.Calls("create_pipeline"); n != tc.wantCalls {
				t.Errorf("create requests = %d, want %d", n, tc.wantCalls)
			}
			if n := len(e.sim.Pipelines(testProject)); n != tc.wantPipes {
				t.Errorf("pipelines = %d, want %d", n, tc.wantPipes)
			}
		})
	}
}

func TestReadsAreRetriedAndCoalescingFailureIsNotADispatchFailure(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	run := mkRun("triage", 3, "a")
	dispatch1(t, d, run)
	dispatch1(t, d, mkRun("triage", 3, "b"))
	e.sim.InjectFault(gitlabsim.Fault{Endpoint: "list_pipelines", Status: 503})
	last := dispatch1(t, d, mkRun("triage", 3, "c"))
	if w := byStatus(e, run, gitlabsim.StatusWaitingForResource); len(w) != 1 || w[0].ID != last {
		t.Fatalf("after a retried list: waiting %+v, want only %d", w, last)
	}
	e.sim.InjectFault(gitlabsim.Fault{Endpoint: "cancel_pipeline", Status: 500})
	newest := dispatch1(t, d, mkRun("triage", 3, "d"))
	if n := e.sim.Calls("cancel_pipeline"); n != 2 {
		t.Errorf("cancel requests = %d, want 2 (a failed cancel is not repeated)", n)
	}
	if w := byStatus(e, run, gitlabsim.StatusWaitingForResource); len(w) != 2 {
		t.Fatalf("waiting = %d, want 2 (cancel failed)", len(w))
	}
	if newer, err := d.Superseded(context.Background(), glapi.ResourceKey(run.Key), last, ""); err != nil || newer != newest {
		t.Fatalf("Superseded(%d) = %d, %v; want %d", last, newer, err, newest)
	}
}

func TestConcurrentDispatchersConverge(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d1, d2 := e.driver(t), e.driver(t)
	run := mkRun("triage", 5, "seed")
	dispatch1(t, d1, run)
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := d1
			if g%2 == 1 {
				d = d2
			}
			for i := 0; i < 3; i++ {
				if r := d.Dispatch(context.Background(), []plan.Run{mkRun("triage", 5, fmt.Sprintf("g%d-%d", g, i))}); r[0].Err != nil {
					t.Error(r[0].Err)
				}
			}
		}()
	}
	wg.Wait()
	w := byStatus(e, run, gitlabsim.StatusWaitingForResource)
	all := e.sim.Pipelines(testProject)
	if len(w) != 1 || w[0].ID != all[len(all)-1].ID {
		t.Fatalf("waiting %+v, want exactly the newest pipeline %d", w, all[len(all)-1].ID)
	}
	if bad := holderCancelled(e); len(bad) > 0 {
		t.Fatalf("cancelled a holder: %+v", bad)
	}
}

func TestDispatchRejectsIncompleteRunsAndCancelledContext(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	bad := mkRun("triage", 1, "x")
	bad.Key = ""
	res := d.Dispatch(context.Background(), []plan.Run{bad, mkRun("triage", 2, "y")})
	if res[0].Err == nil || res[1].Err != nil || len(res) != 2 {
		t.Fatalf("results %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = d.Dispatch(ctx, []plan.Run{mkRun("triage", 3, "z")})
	if res[0].Err == nil || e.sim.Calls("create_pipeline") != 1 {
		t.Fatalf("cancelled context: %+v, creates %d", res, e.sim.Calls("create_pipeline"))
	}
}
