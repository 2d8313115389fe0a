package gitlabpipeline

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
	"go.uber.org/goleak"
	"golang.org/x/time/rate"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testProject = "acme/sub/platform"

// env is one emulator plus driver options pointing at it.
type env struct {
	sim  *gitlabsim.Server
	opts Options
}

func newEnv(t testing.TB, so gitlabsim.Options) *env {
	t.Helper()
	if len(so.Projects) == 0 {
		so.Projects = []string{testProject}
	}
	sim := gitlabsim.New(so)
	base, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		sim.Close()
	})
	return &env{sim: sim, opts: Options{
		APIURL: base, Token: sim.Token(), Project: testProject, Ref: "main",
		RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond, MaxRetryAfter: 2 * time.Second,
		Timeout: 2 * time.Second, RateLimiter: rate.NewLimiter(rate.Inf, 0), Transport: tr,
	}}
}

func (e *env) driver(t *testing.T) *Driver {
	t.Helper()
	d, err := New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// mkRun builds a run for issue id of harness h whose comment body is body.
func mkRun(h string, id int64, body string) plan.Run {
	ev := &event.Event{
		Repo:       "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: id, URL: fmt.Sprintf("https://github.com/acme/platform/issues/%d", id)},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: body}},
		Actor:      event.Actor{ID: "u1", Kind: event.ActorHuman, Role: "write"},
		State:      event.State{Labels: []string{}},
		Source:     event.Source{System: event.SystemGitHub, RawType: "issue_comment"},
	}
	return plan.Run{Harness: h, Role: h, Event: ev, Key: scope.KeyOf(h, ev, ""), WorkItem: plan.WorkItemOf(ev)}
}

// dispatch1 dispatches one run and returns its pipeline id.
func dispatch1(t *testing.T, d *Driver, run plan.Run) int64 {
	t.Helper()
	res := d.Dispatch(context.Background(), []plan.Run{run})
	if len(res) != 1 || res[0].Err != nil || res[0].Ref == nil {
		t.Fatalf("dispatch: %+v", res)
	}
	var id int64
	if _, err := fmt.Sscan(res[0].Ref.ID, &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// eventBody decodes FULLSEND_EVENT of a pipeline and returns its comment body.
func eventBody(t *testing.T, p gitlabsim.Pipeline) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(p.Variables[glapi.VarEvent])
	if err != nil {
		t.Fatalf("pipeline %d: FULLSEND_EVENT is not base64: %v", p.ID, err)
	}
	var ev event.Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("pipeline %d: FULLSEND_EVENT is not an event: %v", p.ID, err)
	}
	return ev.Transition.Comment.Body
}

// byStatus returns the pipelines of the scope of run with the given status.
func byStatus(e *env, run plan.Run, status string) []gitlabsim.Pipeline {
	var out []gitlabsim.Pipeline
	for _, p := range e.sim.Pipelines(testProject) {
		if p.Name == glapi.PipelineName(glapi.ResourceKey(run.Key)) && p.Status == status {
			out = append(out, p)
		}
	}
	return out
}
