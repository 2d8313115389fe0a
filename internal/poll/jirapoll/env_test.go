package jirapoll_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

const (
	repo    = "acme/platform"
	project = "PROJ"
	alice   = "acct-alice" // Developers → write
	carol   = "acct-carol" // no role → external
	robot   = "acct-robot" // an app account
)

// epoch is where every test world's clock starts.
var epoch = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// clock is a test world's clock. It moves only when the test advances it
// and when the emulator reads it: every emulator read moves it on by one
// millisecond (Jira's resolution), so that every write on the site gets a
// time of its own, later than everything before it, as on a real site.
// The pollers and the test read it without moving it.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	frozen bool // emulator reads do not move it (freeze)
}

// Now is the current time.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// tick moves the clock on by one millisecond, unless it is frozen, and
// returns the new time.
func (c *clock) tick() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.frozen {
		c.now = c.now.Add(time.Millisecond)
	}
	return c.now
}

// freeze stops (on) or restarts the emulator's ticks: every write made
// while it is frozen gets the same millisecond, as a bulk edit's may.
func (c *clock) freeze(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frozen = on
}

// Advance moves the clock on by d.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is one emulated Jira site with a project and a few accounts, on the
// world's clock. It is the one way tests build a world: newEnv, then
// issues, then pollers.
type env struct {
	t         testing.TB
	sim       *jirasim.Server
	base      string
	transport *http.Transport
	clock     *clock
	// worldClient puts the pollers' Jira clients on the world's clock:
	// their limiter, pacing and retry waits pass world time.
	worldClient bool
	// clientRPS and clientBurst, if set, replace the clients' unpaced
	// default (config's defaults: 10 and 20).
	clientRPS   float64
	clientBurst int
	gaps        gaps // the pollers' re-read-to-lock-write gaps
	// skew is how far the site's clock runs ahead of the world's (the
	// pollers' host clock); the pollers read the site's from its answers.
	skew time.Duration
	// onWait, if set, runs once, at the first wait of a poller's client
	// (worldClient) at least waitAtLeast long, as it begins: what the
	// world does while the client waits.
	waitMu      sync.Mutex
	onWait      func()
	waitAtLeast time.Duration
}

// whenWaiting sets env.onWait.
func (e *env) whenWaiting(atLeast time.Duration, f func()) {
	e.waitMu.Lock()
	defer e.waitMu.Unlock()
	e.onWait, e.waitAtLeast = f, atLeast
}

// newEnv starts the emulator with opts on a fresh clock at epoch (opts.Now
// must be unset).
func newEnv(t testing.TB, opts jirasim.Options) *env { return newSkewedEnv(t, opts, 0) }

// newSkewedEnv is newEnv with the site's clock skew ahead of the world's.
func newSkewedEnv(t testing.TB, opts jirasim.Options, skew time.Duration) *env {
	t.Helper()
	if opts.Now != nil {
		t.Fatal("newEnv: the world's clock is the env's")
	}
	c := &clock{now: epoch}
	opts.Now = func() time.Time { return c.tick().Add(skew) }
	s := jirasim.New(opts)
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, sim: s, base: base, transport: &http.Transport{MaxIdleConnsPerHost: 64}, clock: c, skew: skew}
	t.Cleanup(func() {
		e.transport.CloseIdleConnections()
		s.Close()
	})
	s.AddProject(project, "Platform")
	s.SetRole(project, "Developers", alice)
	s.AddUser(jira.User{AccountID: carol})
	s.AddUser(jira.User{AccountID: robot, AccountType: "app"})
	return e
}

// sleep is a wait of the pollers' clients (pacing, retries) on the
// world's clock: the world's time passes, the test's does not.
func (e *env) sleep(ctx context.Context, d time.Duration) error {
	e.waitMu.Lock()
	h := e.onWait
	if h != nil && d >= e.waitAtLeast {
		e.onWait = nil
	} else {
		h = nil
	}
	e.waitMu.Unlock()
	if h != nil {
		h()
	}
	if d > 0 {
		e.clock.Advance(d)
	}
	return ctx.Err()
}

// jitter is the pollers' lock jitter: a sleep that also outlasts every
// other poller's re-read-to-lock-write gap open when it began (see gaps).
func (e *env) jitter(ctx context.Context, d time.Duration) error {
	if d > 0 {
		e.gaps.wait(ctx)
	}
	return e.sleep(ctx, d)
}

// issue creates an issue reported by alice.
func (e *env) issue() string {
	return e.sim.AddIssue(jirasim.IssueSpec{Project: project, Summary: "work", Reporter: alice})
}

// Whether env.issues writes a lastCheck on the issues it creates.
const (
	seeded = true  // everything so far handled: only later changes count
	fresh  = false // no lastCheck: the issue's whole history counts
)

// issues is the world builder: it creates n issues reported by alice,
// seeds them when seeded (then lets 3 ms pass on the world's clock, so
// that every later change comes after the lastCheck), and adds comment by
// alice to each when comment is not empty.
func (e *env) issues(n int, seed bool, comment string) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = e.issue()
		if seed {
			e.seed(keys[i])
		}
	}
	if seed {
		e.clock.Advance(3 * time.Millisecond)
	}
	if comment != "" {
		for _, k := range keys {
			e.sim.AddComment(k, alice, comment)
		}
	}
	return keys
}

// plateau creates n seeded issues reported by alice, all created (so
// updated) in the same millisecond, as a bulk edit or an import leaves
// them, then lets 3 ms pass.
func (e *env) plateau(n int) []string {
	at := e.siteNow().Truncate(time.Millisecond)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = e.sim.AddIssue(jirasim.IssueSpec{Project: project, Summary: "work", Reporter: alice, Created: at})
		e.seed(keys[i])
	}
	e.clock.Advance(3 * time.Millisecond)
	return keys
}

// laggingWorld is a world whose search shows writes only 300 ms later,
// with two fresh issues that have a /fs-triage comment the search already
// shows: what the test writes next, the search does not see yet.
func laggingWorld(t testing.TB) (e *env, a, b string) {
	e = newEnv(t, jirasim.Options{SearchLag: 300 * time.Millisecond})
	keys := e.issues(2, fresh, "/fs-triage")
	e.clock.Advance(350 * time.Millisecond)
	return e, keys[0], keys[1]
}

// seed marks everything on key so far as handled.
func (e *env) seed(key string) {
	lc := lastcheck.LastCheck{TS: e.siteNow()}
	b, _ := json.Marshal(lc)
	e.sim.SetPropertyDirect(key, lockKey(), nil)
	e.sim.SetPropertyDirect(key, checkKey(), b)
}

func lockKey() string  { l, _ := polllock.Keys(repo); return l }
func checkKey() string { _, c := polllock.Keys(repo); return c }

// siteNow is the site's clock, read without moving it.
func (e *env) siteNow() time.Time { return e.clock.Now().Add(e.skew) }

func (e *env) client() *jira.Client { return e.clientOn(nil) }

// clientOn is a Jira client whose answers feed the site's clock tc (nil:
// none).
func (e *env) clientOn(tc *trackerclock.Clock) *jira.Client {
	e.t.Helper()
	o := jira.Options{BaseURL: e.base, Token: "t0ken", RPS: 10000, Burst: 10000,
		MaxRetries: 1, BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, Transport: e.transport, Clock: tc}
	if e.worldClient {
		o.Now, o.Sleep = e.clock.Now, e.sleep
	}
	if e.clientRPS > 0 {
		o.RPS, o.Burst = e.clientRPS, e.clientBurst
	}
	c, err := jira.New(o)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// pollerOpts tune a poller in tests.
type pollerOpts struct {
	id       string
	n        int
	stale    time.Duration
	pending  time.Duration // the pending TTL (0: the driver's default)
	jitter   time.Duration // max jitter; 0 means no wait
	seed     uint64
	out      output.Driver
	dryRun   bool
	queries  []string
	observer poll.Observer
	// cursor is the cursor mode ("": no cursor API at all); log, if set,
	// receives the driver's and the cycle's records.
	cursor string
	log    *slog.Logger
	m      int // search page size (0: the driver's default)
	// wrapCursor, if set, wraps the cursor API (to interleave writes).
	wrapCursor func(jirapoll.CursorAPI) jirapoll.CursorAPI
	// hostSkew is how far this poller's host clock runs ahead of the
	// world's.
	hostSkew time.Duration
	entities bool // the driver's Options.Entities
}

// poller is one fullsend poll process: its own client, driver and core.
type poller struct {
	e      *env
	client *jira.Client
	drv    *jirapoll.Driver
	o      pollcycle.Options
}

func (e *env) poller(po pollerOpts) *poller {
	e.t.Helper()
	if po.id == "" {
		po.id = "poller-1"
	}
	if po.n == 0 {
		po.n = 5
	}
	if po.stale == 0 {
		po.stale = time.Minute
	}
	if po.queries == nil {
		po.queries = []string{"project = " + project + " AND statusCategory != Done"}
	}
	// As in production (FromConfig), the driver is on the site's clock
	// read from its client's answers; the host clock is the world's.
	tc := trackerclock.New(func() time.Time { return e.clock.Now().Add(po.hostSkew) })
	c := e.clientOn(tc)
	opts := jirapoll.Options{API: c, Usage: jirapoll.UsageOf(c), SiteURL: e.base, Repo: repo, Queries: po.queries, N: po.n, StaleThreshold: po.stale, PendingTTL: po.pending, PollerID: po.id,
		Now: tc.Now, ClockKnown: tc.Known, Log: po.log, M: po.m, Entities: po.entities}
	if po.cursor != "" {
		opts.CursorAPI, opts.CursorMode, opts.Project = c, po.cursor, project
		if po.wrapCursor != nil {
			opts.CursorAPI = po.wrapCursor(c)
		}
	}
	drv, err := jirapoll.New(opts)
	if err != nil {
		e.t.Fatal(err)
	}
	jmax := po.jitter
	if jmax == 0 {
		jmax = -1
	}
	return &poller{e: e, client: c, drv: drv, o: pollcycle.Options{
		Driver: &gapDriver{Driver: drv, g: &e.gaps}, Core: testCore{}, Output: po.out, Validate: (*event.Event).Validate,
		N: po.n, JitterMin: jmax / 2, JitterMax: jmax, DryRun: po.dryRun,
		Rand: rand.New(rand.NewPCG(po.seed, 7)), Observer: po.observer, Sleep: e.jitter, Log: po.log}}
}

func (p *poller) cycle(ctx context.Context) (pollcycle.Result, error) { return pollcycle.Run(ctx, p.o) }

func (p *poller) mustCycle() poll.CycleStats {
	p.e.t.Helper()
	res, err := p.cycle(context.Background())
	if err != nil {
		p.e.t.Fatalf("cycle: %v", err)
	}
	return res.Stats
}

// testCore is a small stand-in for the core: humans with role write or
// admin pass the gate; harness "triage" runs on a /fs-triage comment,
// "audit" on any comment, "watch" on a label change.
type testCore struct{}

func (testCore) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	if ev.Actor.Kind != event.ActorHuman || (ev.Actor.Role != "write" && ev.Actor.Role != "admin") {
		return poll.Decision{Verdict: poll.VerdictDenied, Reason: "role " + string(ev.Actor.Role)}
	}
	var runs []plan.Run
	add := func(h string) {
		runs = append(runs, plan.Run{Harness: h, Role: h, Event: ev, Key: scope.KeyOf(h, ev, ""), WorkItem: plan.WorkItemOf(ev)})
	}
	tr := ev.Transition
	if tr.Kind == event.CommentAdded && tr.Comment.Command == "/fs-triage" {
		add("triage")
	}
	if tr.Kind == event.CommentAdded {
		add("audit")
	}
	if tr.Kind == event.LabelChanged {
		add("watch")
	}
	if len(runs) == 0 {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	return poll.Decision{Verdict: poll.VerdictRun, Runs: runs}
}

func (testCore) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }
func (testCore) Refund([]plan.Run)                                    {}
func (testCore) DecidesEntities(string) bool                          { return false }

// recorder is the test double output driver: it records every run,
// fails the harnesses listed in fail, and answers with a run reference.
type recorder struct {
	mu    sync.Mutex
	runs  []plan.Run
	fail  map[string]bool // harness → fail its runs
	calls int
	// after, if set, is called with each successful run (a runner).
	after func(plan.Run)
}

func (r *recorder) Name() string { return "recorder" }

func (r *recorder) Dispatch(_ context.Context, runs []plan.Run) []output.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	out := make([]output.Result, len(runs))
	for i, run := range runs {
		out[i].Run = run
		if r.fail[run.Harness] {
			out[i].Err = errors.New("injected dispatch failure")
			continue
		}
		r.runs = append(r.runs, run)
		out[i].Ref = &plan.Ref{Driver: "recorder", ID: fmt.Sprint(len(r.runs)), URL: "https://ci.example/runs/" + fmt.Sprint(len(r.runs))}
		if r.after != nil {
			r.after(run)
		}
	}
	return out
}

func (r *recorder) setFail(h string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail == nil {
		r.fail = map[string]bool{}
	}
	r.fail[h] = on
}

func (r *recorder) all() []plan.Run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]plan.Run(nil), r.runs...)
}

// count returns dispatches per "ISSUE/harness".
func (r *recorder) count() map[string]int {
	m := map[string]int{}
	for _, run := range r.all() {
		m[run.Event.Entity.Key+"/"+run.Harness]++
	}
	return m
}

// release is the runner's teardown: delete the lock of run's issue.
func (e *env) release(run plan.Run) {
	key, prop, err := polllock.ParseRef(run.PollLock.Property)
	if err != nil {
		e.t.Errorf("run carries a bad poll lock: %v", err)
		return
	}
	e.sim.SetPropertyDirect(key, prop, nil)
}

// releaseAll removes the lock of each of keys, as the runs the cycles
// dispatched do when they end (a cycle leaves no other lock behind).
func (e *env) releaseAll(keys []string) {
	for _, k := range keys {
		if _, ok := e.sim.Property(k, lockKey()); ok {
			e.sim.SetPropertyDirect(k, lockKey(), nil)
		}
	}
}

func (e *env) lastCheck(key string) (lastcheck.LastCheck, bool) {
	raw, ok := e.sim.Property(key, checkKey())
	if !ok {
		return lastcheck.LastCheck{}, false
	}
	lc, err := lastcheck.Parse(raw)
	if err != nil {
		e.t.Fatalf("lastCheck on %s: %v", key, err)
	}
	return lc, true
}

func (e *env) lock(key string) (polllock.Lock, bool) {
	raw, ok := e.sim.Property(key, lockKey())
	if !ok {
		return polllock.Lock{}, false
	}
	l, err := polllock.Parse(raw)
	if err != nil {
		e.t.Fatalf("lock on %s: %v", key, err)
	}
	return l, true
}

func sumCalls(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func splitRef(property string) (string, string, error) { return polllock.ParseRef(property) }
