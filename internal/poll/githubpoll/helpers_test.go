package githubpoll

import (
	"context"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	repo  = "acme/platform"
	token = "ghs_pollTestToken"
)

// fixture is an emulated repository with a writer (alice), a maintainer
// (mara) and the run workflow.
type fixture struct {
	sim  *githubsim.Server
	base string
	tr   *http.Transport
	clk  *fakeclock.Clock
	out  *ghadispatch.Driver
	core poll.Decider
}

func newFixture(t testing.TB) *fixture { return newFixtureLimit(t, 0) }

// newFixtureLimit is newFixture with the emulator's hourly rate limit
// (0: GitHub's 5000).
func newFixtureLimit(t testing.TB, limit int) *fixture {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	s := githubsim.New(githubsim.Options{Token: token, Now: clk.Now, RateLimit: limit, Repos: []githubsim.Repo{{FullName: repo,
		DefaultBranch: "main", Workflows: []githubsim.Workflow{{File: ghadispatch.DefaultWorkflow, Inputs: plan.Names}}}}})
	base, err := s.Start()
	must(t, err)
	tr := &http.Transport{}
	t.Cleanup(func() { tr.CloseIdleConnections(); s.Close() })
	must(t, s.SetPermission(repo, "alice", "write"))
	must(t, s.SetPermission(repo, "mara", "maintain"))
	f := &fixture{sim: s, base: base, tr: tr, clk: clk, core: harnesses{"triage"}}
	f.out, err = ghadispatch.New(ghadispatch.Options{APIURL: base, Token: token, Repo: repo, Ref: "main",
		HTTPClient: &http.Client{Transport: tr}, Timeout: 5 * time.Second, Sleep: clk.Sleep})
	must(t, err)
	return f
}

func (f *fixture) client(t *testing.T) *http.Client { return &http.Client{Transport: f.tr} }

// poller is a new poller (an empty memory) with no grace.
func (f *fixture) poller(t *testing.T) *Poller {
	t.Helper()
	gh, err := github.NewClient(f.base, token, github.ClientOptions{HTTPClient: f.client(t)})
	must(t, err)
	p, err := New(Options{Client: gh, Repo: repo, Now: f.clk.Now})
	must(t, err)
	return p
}

// settle moves the clock past the second of the last change and the
// clock's error, so that a cycle takes that second as complete
// (changepos.LastComplete) and may dispatch its changes.
func (f *fixture) settle() { f.clk.Advance(trackerclock.ClockError + Resolution) }

// cycle runs one poll cycle of d through the gha-dispatch output.
func (f *fixture) cycle(t *testing.T, d *Driver) poll.CycleStats {
	t.Helper()
	res, err := f.run(context.Background(), d)
	must(t, err)
	return res.Stats
}

func (f *fixture) run(ctx context.Context, d *Driver) (pollcycle.Result, error) {
	return pollcycle.Run(ctx, pollcycle.Options{Driver: d, Core: f.core, Output: f.out, JitterMax: -1, Now: f.clk.Now,
		Validate: (*event.Event).Validate, N: 1000})
}

// webhook runs the event path (fullsend-events.yml) for one delivery:
// gha-event maps it, the matching harnesses' runs carry the change's
// idempotency key, gha-dispatch starts and settles them.
func (f *fixture) webhook(ctx context.Context, d githubsim.Delivery) error {
	lk := f.lookup()
	drv, err := ghaevent.New(ghaevent.Options{EventName: d.Event, Payload: d.Payload, Repo: repo, Permissions: lk, Pulls: lk})
	if err != nil {
		return err
	}
	ev, err := drv.Read(ctx)
	if err != nil {
		return err
	}
	dec := f.core.Decide(ev, nil)
	runs := dec.Runs
	for i := range runs {
		if pos := drv.ChangePos(); !pos.IsZero() {
			runs[i].WorkItem.IdempotencyKey = changepos.Key(string(runs[i].Key), pos)
		}
	}
	for _, r := range f.out.Dispatch(ctx, runs) {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

func (f *fixture) lookup() *ghaevent.Lookup {
	gh, err := github.NewClient(f.base, token, github.ClientOptions{HTTPClient: &http.Client{Transport: f.tr}})
	if err != nil {
		panic(err)
	}
	return ghaevent.NewLookup(gh)
}

// live counts the runs per title that are not cancelled; all counts
// every run.
func (f *fixture) runs(all bool) map[string]int {
	out := map[string]int{}
	for _, r := range f.sim.Runs() {
		if all || r.Conclusion != githubsim.ConclusionCancelled {
			out[githubsim.DisplayTitle(r.Inputs)]++
		}
	}
	return out
}

// harnesses runs every listed harness for every comment, opening, label
// change and review.
type harnesses []string

func (h harnesses) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	var runs []plan.Run
	for _, name := range h {
		runs = append(runs, plan.Run{Harness: name, Event: ev, Key: scope.KeyOf(name, ev, "github"),
			WorkItem: plan.WorkItem{URL: ev.Entity.URL, Source: event.SystemGitHub}})
	}
	return poll.Decision{Verdict: poll.VerdictRun, Runs: runs}
}

func (h harnesses) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }
func (harnesses) Refund([]plan.Run)                                      {}
func (harnesses) DecidesEntities(string) bool                            { return false }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
