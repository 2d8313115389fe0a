package ghadispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestDispatchEndToEnd dispatches a run built from a real event and checks
// the emulator received the workflow, ref and the nine inputs exactly,
// that the run reference is returned, and that Cancel cancels that run.
func TestDispatchEndToEnd(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	d := e.driver(t, nil)
	run := jiraRun(t)

	res := d.Dispatch(context.Background(), []plan.Run{run})
	if len(res) != 1 || res[0].Err != nil {
		t.Fatalf("Dispatch = %+v", res)
	}
	runs := e.sim.Runs()
	if len(runs) != 1 {
		t.Fatalf("emulator has %d runs, want 1", len(runs))
	}
	got := runs[0]
	if got.Workflow != "fullsend-run.yml" || got.Ref != "main" || got.Repo != "acme/platform" {
		t.Errorf("run = %s %s %s, want acme/platform fullsend-run.yml main", got.Repo, got.Workflow, got.Ref)
	}
	want := run.Inputs()
	if !maps.Equal(got.Inputs, want) {
		t.Errorf("inputs differ:\n got %v\nwant %v", got.Inputs, want)
	}
	if keys := slices.Sorted(maps.Keys(got.Inputs)); !slices.Equal(keys, slices.Sorted(slices.Values(plan.Always))) {
		t.Errorf("input names = %v, want the nine of plan.Always", keys)
	}
	var lock plan.PollLock
	if err := json.Unmarshal([]byte(got.Inputs[plan.InPollLock]), &lock); err != nil || lock != *run.PollLock {
		t.Errorf("poll_lock input = %q (%v), want %+v", got.Inputs[plan.InPollLock], err, *run.PollLock)
	}
	if got.Inputs[plan.InSerializationKey] != "triage:acme/platform:jira:work_item:10042" {
		t.Errorf("serialization_key = %q", got.Inputs[plan.InSerializationKey])
	}
	wantRef := plan.Ref{Driver: Name, ID: strconv.FormatInt(got.ID, 10), URL: got.HTMLURL}
	if res[0].Ref == nil || *res[0].Ref != wantRef {
		t.Fatalf("Ref = %+v, want %+v", res[0].Ref, wantRef)
	}

	out, err := d.Cancel(context.Background(), *res[0].Ref)
	if err != nil || !strings.Contains(out, "cancelled run "+wantRef.ID) {
		t.Fatalf("Cancel = %q, %v", out, err)
	}
	after, _ := e.sim.Run(got.ID)
	if after.Status != githubsim.StatusCompleted || after.Conclusion != githubsim.ConclusionCancelled {
		t.Errorf("after cancel run is %s/%s", after.Status, after.Conclusion)
	}
	out, err = d.Cancel(context.Background(), *res[0].Ref)
	if err != nil || !strings.Contains(out, "already completed") {
		t.Errorf("second Cancel = %q, %v; want already completed", out, err)
	}
	if strings.Contains(e.logs.String(), testToken) {
		t.Error("the token appears in the logs")
	}
}

func TestRefResolution(t *testing.T) {
	tests := []struct {
		name      string
		cfgRef    string
		envRef    string
		wantRef   string
		repoCalls int
		ghRef     string // $GITHUB_REF
	}{
		{"config wins", "release", "main", "release", 0, ""},
		{"GITHUB_REF_NAME next", "", "release", "release", 0, ""},
		{"default branch looked up once", "", "", "main", 1, ""},
		// In a pull_request job GITHUB_REF_NAME is "<number>/merge", which
		// is neither a branch nor a tag; config fills its ref from it.
		{"pull request merge ref is not dispatchable", "", "7/merge", "main", 1, "refs/pull/7/merge"},
		{"pull request merge ref copied into config", "7/merge", "7/merge", "main", 1, "refs/pull/7/merge"},
		{"explicit config ref in a pull request job", "release", "7/merge", "release", 0, "refs/pull/7/merge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, githubsim.Options{})
			d := e.driver(t, func(o *Options) {
				o.Ref = tt.cfgRef
				o.Getenv = func(k string) string {
					switch k {
					case "GITHUB_REF_NAME":
						return tt.envRef
					case "GITHUB_REF":
						return tt.ghRef
					}
					return ""
				}
			})
			run := jiraRun(t)
			for range 2 {
				if res := d.Dispatch(context.Background(), []plan.Run{run, run}); res[0].Err != nil || res[1].Err != nil {
					t.Fatalf("Dispatch: %v / %v", res[0].Err, res[1].Err)
				}
			}
			for _, r := range e.sim.Runs() {
				if r.Ref != tt.wantRef {
					t.Errorf("ref = %q, want %q", r.Ref, tt.wantRef)
				}
			}
			if n := len(e.sim.Runs()); n != 4 {
				t.Errorf("%d runs, want 4", n)
			}
			if got := e.sim.Calls(githubsim.EndpointRepo); got != tt.repoCalls {
				t.Errorf("repository lookups = %d, want %d", got, tt.repoCalls)
			}
		})
	}
}

func TestWorkflowSelectionAndRepo(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	d := e.driver(t, func(o *Options) { o.Repo = ""; o.DefaultWorkflow = "triage.yml" })
	plain := jiraRun(t)
	override := jiraRun(t)
	override.Workflow = "fullsend-run.yml"
	res := d.Dispatch(context.Background(), []plan.Run{plain, override})
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("run %d: %v", i, r.Err)
		}
	}
	runs := e.sim.Runs()
	if len(runs) != 2 || runs[0].Workflow != "triage.yml" || runs[1].Workflow != "fullsend-run.yml" {
		t.Fatalf("workflows = %+v", runs)
	}
	if runs[0].Repo != "acme/platform" {
		t.Errorf("repo from event = %q", runs[0].Repo)
	}
}

func TestLegacyServerWithoutRunDetails(t *testing.T) {
	e := newEnv(t, githubsim.Options{Legacy: true})
	d := e.driver(t, nil)
	res := d.Dispatch(context.Background(), []plan.Run{jiraRun(t)})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	if res[0].Ref == nil || res[0].Ref.ID != "" || res[0].Ref.Driver != Name {
		t.Fatalf("Ref = %+v, want gha-dispatch ref without id", res[0].Ref)
	}
	if len(e.sim.Runs()) != 1 {
		t.Fatal("nothing dispatched")
	}
	_, err := d.Cancel(context.Background(), *res[0].Ref)
	if err == nil || !strings.Contains(err.Error(), "cancel it by hand") {
		t.Errorf("Cancel without id = %v", err)
	}
}

func TestRunDetailsRejectedFallsBack(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	e.sim.Inject(githubsim.Fault{Endpoint: githubsim.EndpointDispatch, Status: 422,
		Message: "Invalid request.\n\n\"return_run_details\" is not a permitted key."})
	d := e.driver(t, nil)
	res := d.Dispatch(context.Background(), []plan.Run{jiraRun(t)})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	if res[0].Ref.ID != "" || len(e.sim.Runs()) != 1 || e.sim.Calls(githubsim.EndpointDispatch) != 2 {
		t.Errorf("ref %+v, runs %d, calls %d", res[0].Ref, len(e.sim.Runs()), e.sim.Calls(githubsim.EndpointDispatch))
	}
}

func TestNewNeedsToken(t *testing.T) {
	_, err := New(Options{APIURL: "http://127.0.0.1:1/", Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Errorf("New without token = %v", err)
	}
	d, err := New(Options{Getenv: func(k string) string {
		return map[string]string{"GH_TOKEN": "x", "GITHUB_API_URL": "http://127.0.0.1:1"}[k]
	}})
	if err != nil || d.client.BaseURL() != "http://127.0.0.1:1/" {
		t.Errorf("New from env = %v", err)
	}
	if _, err := New(Options{Token: "x", APIURL: "http://example.com/"}); err == nil {
		t.Error("plain http to a non-loopback host was accepted")
	}
	if _, err := New(Options{Token: "x", Repo: "no-slash"}); err == nil {
		t.Error("bad repo accepted")
	}
}

// GitHub accepts at most 65,535 characters of workflow_dispatch inputs. A
// comment too long for them is cut and so are labels too many for them
// (plan.FitInputs): the run is dispatched with its labels marked
// truncated. Inputs that stay too large (here an entity URL no event
// should carry) are refused by the driver, never sent, with an error
// naming the limit and wrapping plan.ErrInputsTooLarge.
func TestInputsTooLargeForGitHub(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*plan.Run)
		sent bool
	}{
		{"300 labels of 255 characters", func(r *plan.Run) {
			for i := range 300 {
				r.Event.State.Labels = append(r.Event.State.Labels, fmt.Sprintf("%03d", i)+strings.Repeat("a", 252))
			}
		}, true},
		{"an entity URL of 70 000 characters", func(r *plan.Run) {
			r.Event.Entity.URL = "https://jira.example/" + strings.Repeat("a", 70000)
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, githubsim.Options{})
			d := e.driver(t, nil)
			run := jiraRun(t)
			tc.mod(&run)
			res := d.Dispatch(context.Background(), []plan.Run{run})
			n := e.sim.Calls(githubsim.EndpointDispatch)
			if !tc.sent {
				if res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "65535") || !errors.Is(res[0].Err, plan.ErrInputsTooLarge) || res[0].Ref != nil || n != 0 {
					t.Fatalf("result = %+v, %d requests; want an error naming GitHub's 65535-character limit and no request", res[0], n)
				}
				return
			}
			if res[0].Err != nil || n != 1 {
				t.Fatalf("result = %+v, %d requests; want dispatched once", res[0], n)
			}
			ev, err := event.Decode([]byte(e.sim.Runs()[0].Inputs[plan.InNormalizedEvent]))
			if err != nil || !ev.State.LabelsTruncated || len(ev.State.Labels) == 0 || len(ev.State.Labels) >= 300 {
				t.Fatalf("dispatched event: %v, %d labels, truncated %v", err, len(ev.State.Labels), ev.State.LabelsTruncated)
			}
		})
	}
}
