package ghadispatch

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testToken = "ghs_secretTestToken123"

// sleeps records the waits the driver asked for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

type env struct {
	sim    *githubsim.Server
	url    string
	logs   *bytes.Buffer
	sleeps *sleeps
}

// newEnv starts an emulator with acme/platform (default branch main,
// branch release, workflows fullsend-run.yml and triage.yml).
func newEnv(t *testing.T, so githubsim.Options) *env {
	t.Helper()
	so.Token = testToken
	so.Repos = append(so.Repos, githubsim.Repo{
		FullName: "acme/platform", DefaultBranch: "main", Branches: []string{"release"},
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names}, {File: "triage.yml"}},
	})
	s := githubsim.New(so)
	u, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &env{sim: s, url: u, logs: &bytes.Buffer{}, sleeps: &sleeps{}}
}

// driver builds a driver against the emulator; mod adjusts the options.
func (e *env) driver(t *testing.T, mod func(*Options)) *Driver {
	t.Helper()
	o := Options{
		APIURL: e.url, Token: testToken, Repo: "acme/platform",
		Log:   slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Sleep: e.sleeps.sleep, Timeout: 5 * time.Second,
	}
	if mod != nil {
		mod(&o)
	}
	d, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.client.Client().CloseIdleConnections() })
	return d
}

// jiraRun is a real-shaped run: a Jira comment asking for triage, planned
// by the poller with a poll lock.
func jiraRun(t testing.TB) plan.Run {
	t.Helper()
	ev := &event.Event{
		Repo: "acme/platform",
		Entity: event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-123",
			URL: "https://acme.atlassian.net/browse/PROJ-123"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{
			Body: "/fs-triage check acceptance criteria", Command: "/fs-triage",
			Instruction: "check acceptance criteria"}},
		Actor:  event.Actor{ID: "557058:abc123", Kind: event.ActorHuman, Role: "write"},
		State:  event.State{Labels: []string{"needs-info", "bug"}},
		Source: event.Source{System: event.SystemJira, RawType: "comment", RawAction: "created"},
	}
	if err := ev.Validate(); err != nil {
		t.Fatalf("test event is invalid: %v", err)
	}
	return plan.Run{
		Harness: "triage", Role: "triage", Event: ev,
		Key:      scope.KeyOf("triage", ev, "github"),
		WorkItem: plan.WorkItemOf(ev),
		PollLock: &plan.PollLock{ID: "0b6f6c1e-poller", Driver: "jira-poll",
			Property: "PROJ-123/fullsend.poll.acme.platform.lock"},
	}
}

// shortTimeout sets a short per-request timeout for ambiguity tests.
func shortTimeout(d time.Duration) func(*Options) {
	return func(o *Options) { o.Timeout = d }
}
