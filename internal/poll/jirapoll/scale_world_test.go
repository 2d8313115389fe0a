package jirapoll_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// The scale world runs on real time: the emulator, the pollers' drivers,
// their Jira clients (pacing, retries) and the lock jitter all read the
// wall clock, so that the rate budget, the search lag and the pollers'
// concurrency interact as on a real site, only with a short interval.

// newScaleEnv starts the emulator on the wall clock with cfg's latency,
// search lag and rate budget, and seeds cfg.issues issues through the
// emulator's Go API: created over the past 30 days (cfg.tied: all in one
// millisecond 30 days ago), everything on them already handled (a
// lastCheck at the seeding time).
func newScaleEnv(t testing.TB, cfg scaleCfg, wall *wallClock) (*env, []string) {
	t.Helper()
	opts := jirasim.Options{SearchLag: cfg.searchLag, Now: wall.Now, KeyComparison: cfg.keys}
	if cfg.latency > 0 {
		lat := cfg.latency
		opts.Latency = func() time.Duration { return lat }
	}
	if cfg.budget > 0 {
		opts.RateBudget = &jirasim.RateBudget{Points: cfg.budget, Window: time.Second}
	}
	opts.BurstLimit = cfg.burstLimit
	s := jirasim.New(opts)
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, sim: s, base: base, transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	t.Cleanup(func() {
		e.transport.CloseIdleConnections()
		s.Close()
	})
	s.AddProject(project, "Platform")
	s.SetRole(project, "Developers", alice)
	start := time.Now().Add(-30 * 24 * time.Hour)
	step := 30 * 24 * time.Hour / time.Duration(max(cfg.issues, 1))
	if cfg.tied {
		step = 0
	}
	keys := make([]string, cfg.issues)
	for i := range keys {
		keys[i] = s.AddIssue(jirasim.IssueSpec{Project: project, Summary: "work", Reporter: alice,
			Created: start.Add(time.Duration(i) * step)})
	}
	e.clock = &clock{now: wall.Now()} // env.seed writes lastCheck at this time
	for _, k := range keys {
		e.seed(k)
	}
	// later comments fall after the lastCheck, and the search shows the seeded world
	wall.Advance(cfg.searchLag + 2*time.Millisecond)
	return e, keys
}

// wallClock is the scale world's clock, shared by the emulator and the
// pollers: the wall clock (latency, rate budget and pacing interact as on
// a real site) plus an offset that the benchmark advances where it would
// otherwise wait for time to pass (the search lag after seeding, the
// cursor margin after the load).
type wallClock struct{ off atomic.Int64 }

func (c *wallClock) Now() time.Time { return time.Now().Add(time.Duration(c.off.Load())) }

// Advance moves the clock on by d at once.
func (c *wallClock) Advance(d time.Duration) { c.off.Add(int64(d)) }

// WaitUntil returns once the clock reads t: the load's comments and the
// pollers' cycle starts are placed on the world's clock, at the rate a
// real site would see them.
func (c *wallClock) WaitUntil(t time.Time) {
	if d := t.Sub(c.Now()); d > 0 {
		<-time.NewTimer(d).C
	}
}

// scalePoller is one poller of the scale world, on the wall clock, with
// the Jira client's production pacing (RPS, burst, retries); seed picks
// its choices.
func (e *env) scalePoller(cfg scaleCfg, name string, seed int, out output.Driver, obs poll.Observer, wall *wallClock) (pollcycle.Options, *jira.Client) {
	e.t.Helper()
	c, err := jira.New(jira.Options{BaseURL: e.base, Token: "t0ken", Transport: e.transport})
	if err != nil {
		e.t.Fatal(err)
	}
	drv, err := jirapoll.New(jirapoll.Options{API: c, Usage: jirapoll.UsageOf(c), SiteURL: e.base, Repo: repo,
		Queries: []string{"project = " + project + " AND statusCategory != Done"}, N: cfg.n, M: cfg.m,
		StaleThreshold: 10 * time.Minute, PollerID: name,
		CursorAPI: c, CursorMode: *scaleCursor, CursorMargin: cfg.margin, Project: project, Now: wall.Now})
	if err != nil {
		e.t.Fatal(err)
	}
	o := pollcycle.Options{Driver: drv, Core: testCore{}, Output: out, Validate: (*event.Event).Validate,
		N: cfg.n, JitterMin: cfg.jitter / 2, JitterMax: cfg.jitter, Now: wall.Now,
		Rand: rand.New(rand.NewPCG(cfg.seed+uint64(seed), 7)), Observer: obs}
	if *scaleScheduled {
		o.Schedule = &poll.Schedule{Decider: labelDecider{label: "needs-agent"}, Policy: "allow", Invoker: "scale", Forge: "github"}
	}
	return o, c
}

// oneShotProcess returns what starts poller p's n-th one-shot process
// (`fullsend poll` as a cron job runs it): a new poller id, driver and
// Jira client, started from the poller's own state directory
// (cfg.noState: none).
func (e *env) oneShotProcess(t testing.TB, cfg scaleCfg, p int, out output.Driver, obs poll.Observer, wall *wallClock) func(n int64) (pollcycle.Options, *jirapoll.State) {
	var dir *pollstate.Dir
	if cfg.oneShot && !cfg.noState {
		dir = pollstate.Open(t.TempDir(), nil, wall.Now)
	}
	return func(n int64) (pollcycle.Options, *jirapoll.State) {
		o, c := e.scalePoller(cfg, fmt.Sprintf("poller-%d.%d", p, n), p*1000+int(n), out, obs, wall)
		st := jirapoll.LoadState(dir.For(jirapoll.Name, e.base), c, "scale", "")
		st.Attach(o.Driver.(*jirapoll.Driver))
		return o, st
	}
}

// change is one triggering comment of the load.
type change struct {
	key, id string
	at      time.Time
	ready   time.Time // when it could be dispatched: at, or the end of the run its issue had then
	snap    []int64   // cycles each poller had started when it was written
	backlog int       // changes not dispatched when it was written, itself included
	done    time.Time
	cycles  int64 // the dispatching poller's cycles from the comment to the dispatch
}

// tracker follows every change from its comment to its dispatch: who
// dispatched it, when, after how many cycles, and how often.
type tracker struct {
	started []atomic.Int64 // cycles started, per poller
	mu      sync.Mutex
	changes []*change
	byKey   map[string][]*change
	runs    map[string]int       // "key/harness/comment id" → dispatches
	busy    map[string]time.Time // issue → when its last dispatched run ends
	runFor  time.Duration
}

// newTracker follows the changes of pollers whose runs hold their lock
// for runFor.
func newTracker(pollers int, runFor time.Duration) *tracker {
	return &tracker{started: make([]atomic.Int64, pollers), byKey: map[string][]*change{}, runs: map[string]int{},
		busy: map[string]time.Time{}, runFor: runFor}
}

// comment writes a triggering comment on key and records it.
func (tr *tracker) comment(e *env, key string) {
	snap := make([]int64, len(tr.started))
	for i := range tr.started {
		snap[i] = tr.started[i].Load()
	}
	at := time.Now()
	id := e.sim.AddComment(key, alice, "/fs-triage go")
	tr.mu.Lock()
	defer tr.mu.Unlock()
	c := &change{key: key, id: id, at: at, ready: at, snap: snap, backlog: 1}
	for _, o := range tr.changes {
		if o.done.IsZero() {
			c.backlog++
		}
	}
	if end := tr.busy[key]; end.After(at) {
		c.ready = end // the issue's run holds the lock: serialized by design
	}
	tr.changes = append(tr.changes, c)
	tr.byKey[key] = append(tr.byKey[key], c)
}

// dispatched records a run poller p dispatched: a triage run delivers
// its comment and every earlier one on the issue (coalesced).
func (tr *tracker) dispatched(p int, run plan.Run) {
	now := time.Now()
	cid := run.Event.Transition.Comment.ID
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.runs[run.Event.Entity.Key+"/"+run.Harness+"/"+cid]++
	if end := now.Add(tr.runFor); end.After(tr.busy[run.Event.Entity.Key]) {
		tr.busy[run.Event.Entity.Key] = end
	}
	if run.Harness != "triage" {
		return
	}
	var upTo *change
	for _, c := range tr.byKey[run.Event.Entity.Key] {
		if c.id == cid {
			upTo = c
		}
	}
	if upTo == nil {
		return
	}
	for _, c := range tr.byKey[run.Event.Entity.Key] {
		if c.done.IsZero() && !c.at.After(upTo.at) {
			c.done = now
			c.cycles = max(tr.started[p].Load()-c.snap[p], 1)
		}
	}
}

// pending is the number of changes not dispatched yet.
func (tr *tracker) pending() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	n := 0
	for _, c := range tr.changes {
		if c.done.IsZero() {
			n++
		}
	}
	return n
}

// scaleOut is a poller's output driver: the shared recorder, then the
// tracker and the simulated runner, which ends the run (releasing its
// lock if it still carries the run's id) runFor after its dispatch.
type scaleOut struct {
	rec    *recorder
	tr     *tracker
	p      int
	e      *env
	runFor time.Duration
	runs   *sync.WaitGroup
	ended  *sync.Map // ref id → the fake run ended
}

// Ended implements poll.RunTracker, as the local executor does: the
// fake runs are this process's.
func (o scaleOut) Ended(ref plan.Ref) bool { _, ok := o.ended.Load(ref.ID); return ok }

func (o scaleOut) Name() string { return o.rec.Name() }

// FindDispatched is the platform's record of runs by idempotency key, as
// the CI drivers have it: a poller that finds another's intent asks it
// (poll.DispatchFinder) instead of dispatching again.
func (o scaleOut) FindDispatched(_ context.Context, run plan.Run, _ time.Time) (*plan.Ref, bool, error) {
	for _, r := range o.rec.all() {
		if k := run.WorkItem.IdempotencyKey; k != "" && r.WorkItem.IdempotencyKey == k {
			return nil, true, nil
		}
	}
	return nil, false, nil
}

func (o scaleOut) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	res := o.rec.Dispatch(ctx, runs)
	for _, r := range res {
		if r.Err != nil {
			continue
		}
		o.tr.dispatched(o.p, r.Run)
		run, ref := r.Run, r.Ref
		o.runs.Add(1)
		time.AfterFunc(o.runFor, func() {
			defer o.runs.Done()
			defer o.ended.Store(ref.ID, true)
			key, prop, err := parseRef(run)
			if err != nil {
				return
			}
			if l, ok := o.e.lock(key); ok && l.ID == run.PollLock.ID {
				o.e.sim.SetPropertyDirect(key, prop, nil)
			}
		})
	}
	return res
}

// loadPlan picks cfg.commented issues and cfg.comments comments on them
// (every picked issue gets one, the rest a second one), each at a random
// offset of the load window, sorted by time.
func loadPlan(cfg scaleCfg, keys []string, window time.Duration) []due {
	r := rand.New(rand.NewPCG(cfg.seed, 11))
	picked := make([]string, 0, cfg.commented)
	for _, i := range r.Perm(len(keys))[:min(cfg.commented, len(keys))] {
		picked = append(picked, keys[i])
	}
	var plan []due
	for i := range cfg.comments {
		k := picked[i%len(picked)]
		if i >= len(picked) {
			k = picked[r.IntN(len(picked))]
		}
		plan = append(plan, due{at: time.Time{}.Add(time.Duration(r.Int64N(int64(window)))), key: k})
	}
	sort.Slice(plan, func(a, b int) bool { return plan[a].at.Before(plan[b].at) })
	return plan
}

// labelDecider is a scheduled decider over one label: it matches the
// entities that carry it (harness "label", default retries).
type labelDecider struct{ label string }

func (l labelDecider) DecideScheduled(res entity.Resolution) poll.ScheduledDecision {
	if !slices.Contains(res.Entity.State.Labels, l.label) {
		return poll.ScheduledDecision{Verdict: poll.VerdictNoMatch}
	}
	return poll.ScheduledDecision{Verdict: poll.VerdictRun, Matched: []poll.ScheduledMatch{{Harness: "label", Role: "label",
		Revision: "sha256:0", MinRole: "write", Retry: reconcile.Policy{Max: 3, Backoff: time.Minute}, Seen: res.Entity}}}
}
