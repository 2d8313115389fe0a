package gitlabpoll

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const project = "acme/platform"

// fixture is an emulated project with one maintainer, alice.
type fixture struct {
	sim   *gitlabsim.Server
	base  string
	tr    *http.Transport
	gl    *gitlab.Client
	clk   *fakeclock.Clock
	alice gitlabsim.User
	disp  *pipelines
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	s := gitlabsim.New(gitlabsim.Options{Projects: []string{project}, Now: clk.Now})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() { tr.CloseIdleConnections(); s.Close() })
	gl, err := glapi.NewClient(glapi.Options{APIURL: base, Token: s.Token(), Timeout: 5 * time.Second, Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sim: s, base: base, tr: tr, gl: gl, clk: clk, alice: s.AddUser("alice", false)}
	must(t, s.SetMember(project, f.alice.ID, gitlabsim.AccessMaintainer))
	f.disp = &pipelines{gl: gl, events: map[string]*event.Event{}}
	return f
}

// settle moves the clock past the second of the last change and the
// clock's error, so that a cycle takes that second as complete
// (changepos.LastComplete) and may dispatch its changes.
func (f *fixture) settle() { f.clk.Advance(trackerclock.ClockError + Resolution) }

func (f *fixture) poller(t *testing.T) *Poller {
	t.Helper()
	p, err := New(Options{Client: f.gl, Project: project, Now: f.clk.Now, Dispatch: f.disp})
	must(t, err)
	return p
}

// webhook runs the gitlab-event path for one webhook body: the payload is
// confirmed and mapped by gitlab-event, then dispatched like the poller's
// events, keyed by the change position gitlab-event confirmed.
func (f *fixture) webhook(ctx context.Context, payload []byte) error {
	d, err := gitlabevent.New(gitlabevent.Options{Payload: payload, Project: project, Repo: project,
		API: &gitlabevent.Lookup{Client: f.gl}})
	if err != nil {
		return err
	}
	evs, err := d.ReadAll(ctx)
	if err != nil {
		return err
	}
	for _, ev := range evs {
		if err := f.disp.Dispatch(ctx, ev, d.ChangePos(), func(string) bool { return false }); err != nil {
			return err
		}
	}
	return nil
}

// live counts the pipelines per idempotency key that were not canceled.
func (f *fixture) live() map[string]int { return f.count(false) }

// count counts the pipelines per idempotency key, the canceled ones too
// when all is set.
func (f *fixture) count(all bool) map[string]int {
	out := map[string]int{}
	for _, p := range f.sim.Pipelines(project) {
		if all || p.Status != gitlabsim.StatusCanceled {
			out[p.Variables[glapi.VarIdempotencyKey]]++
		}
	}
	return out
}

// pipelines dispatches like gitlab-pipeline for one harness: a pipeline
// named after the scope carrying the idempotency key, then Settle.
type pipelines struct {
	gl     *gitlab.Client
	mu     sync.Mutex
	events map[string]*event.Event // the first event dispatched per key
	// skipDone records the event without dispatching when the key is
	// already dispatched (to compare both paths' events).
	skipDone bool
}

const harness = "triage"

func keyOf(ev *event.Event, pos changepos.Pos) (scope.Key, string) {
	sk := scope.KeyOf(harness, ev, "gitlab")
	return sk, changepos.Key(string(sk), pos)
}

func (d *pipelines) Dispatch(ctx context.Context, ev *event.Event, pos changepos.Pos, done func(string) bool) error {
	sk, key := keyOf(ev, pos)
	if done(key) && !d.skipDone {
		return nil
	}
	d.mu.Lock()
	if d.events[key] == nil {
		d.events[key] = ev
	}
	d.mu.Unlock()
	if done(key) {
		return nil
	}
	rk := glapi.ResourceKey(sk)
	vars := []*gitlab.PipelineVariableOptions{
		{Key: gitlab.Ptr(glapi.VarResourceKey), Value: gitlab.Ptr(rk)},
		{Key: gitlab.Ptr(glapi.VarIdempotencyKey), Value: gitlab.Ptr(key)},
	}
	p, _, err := d.gl.Pipelines.CreatePipeline(project, &gitlab.CreatePipelineOptions{Ref: gitlab.Ptr("main"), Variables: &vars},
		gitlab.WithContext(ctx))
	if err != nil {
		return err
	}
	_, err = gitlabpipeline.Settle(ctx, d.gl, project, glapi.PipelineName(rk), key, p.ID)
	return err
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
