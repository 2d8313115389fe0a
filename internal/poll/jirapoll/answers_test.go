package jirapoll_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll/controller"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// gateway stands in front of the GitHub emulator and answers the first
// `times` workflow dispatches itself with status and body (forward: after
// handing them to GitHub), as a proxy or a refusing GitHub would.
type gateway struct {
	mu          sync.Mutex
	times       int
	forward     bool
	status      int
	contentType string
	body        string
	answered    int
}

func (g *gateway) take() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.answered >= g.times {
		return false
	}
	g.answered++
	return true
}

// ghWorld is the GitHub side of a poll world: the emulator on the world's
// clock behind a gateway, and the gha-dispatch driver through it.
type ghWorld struct {
	sim *githubsim.Server
	out *ghadispatch.Driver
}

func newGHWorld(t *testing.T, e *env, g *gateway) *ghWorld {
	t.Helper()
	gs := githubsim.New(githubsim.Options{Token: "ghs_t", Now: e.clock.Now, Repos: []githubsim.Repo{{
		FullName: repo, DefaultBranch: "main",
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names}},
	}}})
	base, err := gs.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	u, _ := url.Parse(base)
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/dispatches") || !g.take() {
			proxy.ServeHTTP(w, r)
			return
		}
		if g.forward {
			rec := httptest.NewRecorder()
			proxy.ServeHTTP(rec, r)
		}
		// The gateway's own Date is on the platform's clock (a proxy on a
		// synchronised host): without it, Go's server would stamp the host's
		// wall clock, which this world's fake clock is far from.
		w.Header().Set("Date", e.clock.Now().UTC().Format(http.TimeFormat))
		w.Header().Set("Content-Type", g.contentType)
		w.WriteHeader(g.status)
		_, _ = io.WriteString(w, g.body)
	}))
	t.Cleanup(srv.Close)
	out, err := ghadispatch.New(ghadispatch.Options{APIURL: srv.URL + "/", Token: "ghs_t", Repo: repo,
		MaxRetries: -1, Sleep: e.sleep})
	if err != nil {
		t.Fatal(err)
	}
	return &ghWorld{sim: gs, out: out}
}

// watch runs `poll --watch`-style cycles of p, interval apart on the
// world's clock, until done reports true or max cycles ran; it returns the
// Jira calls of each cycle.
func watch(t *testing.T, e *env, p *poller, interval time.Duration, max int, done func() bool) []int {
	t.Helper()
	var calls []int
	cycles := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := controller.Watch(ctx, controller.WatchOptions{Interval: interval, Sleep: func(ctx context.Context, d time.Duration) error {
		e.clock.Advance(d)
		return nil
	}}, func(ctx context.Context) error {
		e.sim.ResetCalls()
		_, err := p.cycle(ctx)
		calls = append(calls, sumCalls(e.sim.Calls()))
		if cycles++; cycles >= max || done() {
			cancel()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// A dispatch GitHub refuses (422) started nothing: its intent is cleared
// at once and the next cycle dispatches again, without waiting out the
// settle time. Eight refusals in a row, then GitHub recovers: the comment
// is dispatched within 30 s of --watch cycles, exactly once.
func TestRefusedDispatchRetriedAtTheNextCycle(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	key := e.issues(1, seeded, "please look")[0] // harness audit only
	g := &gateway{times: 8, status: http.StatusUnprocessableEntity, contentType: "application/json",
		body: `{"message":"Unexpected inputs provided"}`}
	gh := newGHWorld(t, e, g)
	p := e.poller(pollerOpts{out: gh.out})
	p.o.Now = e.clock.Now
	start := e.clock.Now()
	var at time.Time
	watch(t, e, p, time.Second, 40, func() bool {
		if at.IsZero() && len(gh.sim.Runs()) > 0 {
			at = e.clock.Now()
		}
		return !at.IsZero()
	})
	if g.answered != 8 {
		t.Fatalf("gateway refused %d dispatches, want 8", g.answered)
	}
	if n := len(gh.sim.Runs()); n != 1 || at.IsZero() {
		t.Fatalf("%d runs, want exactly 1", n)
	}
	t.Logf("dispatched %s after the first cycle, after %d refusals", at.Sub(start), g.answered)
	if d := at.Sub(start); d > 30*time.Second {
		t.Errorf("dispatched %s after the first cycle, want within 30s", d)
	}
	lc, _ := e.lastCheck(key)
	if len(lc.Intents) != 0 {
		t.Errorf("intents left after the dispatch: %v", lc.Intents)
	}
	if _, locked := e.lock(key); !locked {
		t.Errorf("no lock handed to the run")
	}
}

// A 200 that is not GitHub's (a proxy's HTML page) leaves the dispatch's
// outcome unknown: the intent stays, the item waits out the settle time
// at no more than 3 Jira calls a cycle and without a lock write, and the
// platform lookup then settles it: exactly one run, whether GitHub had
// started it behind the proxy or not.
func TestProxyAnswerIsNotADispatch(t *testing.T) {
	for _, forwarded := range []bool{true, false} {
		name := "GitHub never saw it"
		if forwarded {
			name = "GitHub started it"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			key := e.issues(1, seeded, "please look")[0]
			g := &gateway{times: 1, forward: forwarded, status: http.StatusOK, contentType: "text/html",
				body: "<html><body>Please sign in</body></html>"}
			gh := newGHWorld(t, e, g)
			p := e.poller(pollerOpts{out: gh.out})
			p.o.Now = e.clock.Now
			e.sim.ResetCalls()
			res, _ := p.cycle(context.Background())
			if res.Stats.DispatchesScheduled != 0 || res.Stats.DispatchesFailed != 1 {
				t.Fatalf("first cycle: stats %+v, want the dispatch failed (unknown), not scheduled", res.Stats)
			}
			if lc, _ := e.lastCheck(key); len(lc.Intents) != 1 {
				t.Fatalf("intents after an unknown answer: %v, want the one kept", lc.Intents)
			}
			calls := watch(t, e, p, 10*time.Second, 30, func() bool {
				lc, _ := e.lastCheck(key)
				return len(lc.Intents) == 0
			})
			t.Logf("Jira calls per cycle: %v", calls)
			waiting := calls[:len(calls)-1] // the last cycle settled the intent
			if len(waiting) < 5 {
				t.Fatalf("only %d cycles waited out the settle time", len(waiting))
			}
			for i, n := range waiting {
				if n > 3 {
					t.Errorf("cycle %d made %d Jira calls while waiting on a settle time, want at most 3", i+1, n)
				}
			}
			if n := len(gh.sim.Runs()); n != 1 {
				t.Errorf("%d runs, want exactly 1", n)
			}
			lc, _ := e.lastCheck(key)
			if len(lc.Intents) != 0 || len(lc.Runs) == 0 && !forwarded {
				t.Errorf("lastCheck %+v: want the change checkpointed", lc)
			}
		})
	}
}

// An issue whose labels make the inputs larger than GitHub accepts (998
// labels of 210 characters: 209 436 characters) is dispatched once, in
// the first cycle: the labels are cut to fit and marked truncated, the
// comment kept whole; nothing is quarantined or left to loop.
func TestLabelsOverTheInputLimitAreCutToFit(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	var labels []string
	for i := range 998 {
		labels = append(labels, fmt.Sprintf("%03d-%s", i, strings.Repeat("x", 206)))
	}
	e.sim.SetLabels(k, labels, alice)
	e.seed(k)
	e.clock.Advance(3 * time.Millisecond)
	e.sim.AddComment(k, alice, "/fs-triage please")
	gh := newGHWorld(t, e, &gateway{})
	p := e.poller(pollerOpts{out: gh.out})
	p.o.Now = e.clock.Now
	res, err := p.cycle(context.Background())
	if err != nil {
		t.Fatalf("cycle: %v (stats %+v)", err, res.Stats)
	}
	runs := gh.sim.Runs()
	if len(runs) != 2 || res.Stats.ChangesQuarantined != 0 || res.Stats.DispatchesScheduled != 2 {
		t.Fatalf("%d runs, stats %+v; want triage and audit dispatched in the first cycle", len(runs), res.Stats)
	}
	for _, r := range runs {
		size := 0
		for _, v := range r.Inputs {
			size += utf8.RuneCountInString(v)
		}
		ev, err := event.Decode([]byte(r.Inputs[plan.InNormalizedEvent]))
		if err != nil {
			t.Fatalf("normalized_event: %v", err)
		}
		if size > ghadispatch.MaxInputChars || !ev.State.LabelsTruncated || len(ev.State.Labels) == 0 ||
			ev.Transition.Comment.Truncated || ev.Transition.Comment.Command != "/fs-triage" {
			t.Errorf("inputs %d characters, %d labels, labels truncated %v, comment %+v", size, len(ev.State.Labels), ev.State.LabelsTruncated, ev.Transition.Comment)
		}
	}
}
