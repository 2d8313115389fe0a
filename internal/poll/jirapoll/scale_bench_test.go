package jirapoll_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// Flags of BenchmarkScale (scripts/bench-poll.sh scale passes them).
var (
	scaleIssues    = flag.Int("scale.issues", 2000, "issues seeded (all handled before the load)")
	scalePollers   = flag.Int("scale.pollers", 4, "pollers running at once")
	scaleComments  = flag.Int("scale.comments", 300, "triggering comments of the load")
	scaleCommented = flag.Int("scale.commented", 280, "issues the comments fall on")
	scaleCycles    = flag.Int("scale.cycles", 20, "cycles (per poller) the comments are spread over")
	scaleN         = flag.Int("scale.n", 5, "N: items a poller works on per cycle")
	scaleM         = flag.Int("scale.m", 50, "M: search page size")
	scaleInterval  = flag.Duration("scale.interval", 3*time.Second, "time between a poller's cycle starts")
	scaleJitter    = flag.Duration("scale.jitter", 300*time.Millisecond, "max lock jitter (min is half)")
	scaleLatency   = flag.Duration("scale.latency", 50*time.Millisecond, "emulated latency per Jira call")
	scaleLag       = flag.Duration("scale.search-lag", 200*time.Millisecond, "emulated search index lag")
	scaleBudget    = flag.Int("scale.budget", 40, "site rate budget in calls per second (0: none)")
	scaleBurst     = flag.Int("scale.burst-limit", 0, "site burst limit in calls per rolling second, moving no X-RateLimit-* header (0: none)")
	scaleRunFor    = flag.Duration("scale.run-for", 2*time.Second, "how long a dispatched run holds its lock")
	scaleIdle      = flag.Int("scale.idle-cycles", 3, "idle cycles per poller before and after the load")
	scaleIdleOnly  = flag.Bool("scale.idle-only", false, "measure idle cycles only (no load)")
	scaleSeed      = flag.Uint64("scale.seed", 1, "seed of the load plan and the pollers' choices")
	scaleMargin    = flag.Duration("scale.margin", 6*time.Second, "cursor margin (production: 2m at a 1m interval; keep the ratio)")
	scaleWarmup    = flag.Int("scale.warmup", 100, "at most this many rounds of cycles before the idle figure, while the first cursor walks the backlog (until a round is idle)")
	scaleCursor    = flag.String("scale.cursor", "user", "where the shared discovery cursor lives: user, project or off")
	scaleTied      = flag.Bool("scale.tied", false, "seed every issue with the same created and updated millisecond (a bulk edit or an import)")
	scaleScheduled = flag.Bool("scale.scheduled", false, "scheduled discovery on: one entity-source harness over a label no issue has (the sweep's cost)")
	scaleOneShot   = flag.Bool("scale.oneshot", false, "one-shot pollers (as the generated cron jobs): a new driver and Jira client every cycle, each poller's state directory kept between them")
	scaleNoState   = flag.Bool("scale.nostate", false, "with -scale.oneshot: keep no state directory (every process starts cold)")
	scaleKeys      = flag.String("scale.keys", "", "the emulator's reading of issue-key comparisons: per-project (the default), per-project-empty, numeric or rejected")
)

type scaleCfg struct {
	issues, pollers, comments, commented, cycles, n, m, budget, idle, warmup int
	burstLimit                                                               int
	interval, jitter, latency, searchLag, runFor, margin                     time.Duration
	idleOnly, tied, oneShot, noState                                         bool
	seed                                                                     uint64
	keys                                                                     jirasim.KeyComparison
}

func scaleFlags() scaleCfg {
	return scaleCfg{issues: *scaleIssues, pollers: *scalePollers, comments: *scaleComments, commented: *scaleCommented,
		cycles: *scaleCycles, n: *scaleN, m: *scaleM, budget: *scaleBudget, burstLimit: *scaleBurst, idle: *scaleIdle, warmup: *scaleWarmup, margin: *scaleMargin,
		interval: *scaleInterval, jitter: *scaleJitter, latency: *scaleLatency, searchLag: *scaleLag,
		runFor: *scaleRunFor, idleOnly: *scaleIdleOnly, tied: *scaleTied, seed: *scaleSeed,
		oneShot: *scaleOneShot, noState: *scaleNoState, keys: scaleKeyReading(*scaleKeys)}
}

// scaleKeyReading is the emulator's reading flag -scale.keys names.
func scaleKeyReading(name string) jirasim.KeyComparison {
	if name == "per-project" {
		return jirasim.KeysPerProject
	}
	return jirasim.KeyComparison(name)
}

// BenchmarkScale is the scale benchmark of docs/polling.md "Sizing":
// pollers on the wall clock against the emulator with latency, search lag
// and a rate budget; idle cycles, a load of triggering comments spread
// over cfg.cycles cycles, a drain, idle cycles again. It prints the
// figures next to their targets. Run it with -benchtime=1x.
func BenchmarkScale(b *testing.B) {
	cfg := scaleFlags()
	for range b.N {
		res := runScale(b, cfg)
		res.print(os.Stdout, cfg)
	}
}

// phase sums the cycle records of one phase.
type phase struct {
	cycles, calls, attempted, lost, skipped, selected, maxEligible, failed int
	durations                                                              []float64 // seconds, per cycle
}

func (p *phase) add(s poll.CycleStats) {
	p.cycles++
	p.calls += s.APICalls
	p.attempted += s.LocksAttempted
	p.lost += s.LocksLost
	p.skipped += s.LocksSkipped
	p.selected += s.Selected
	p.maxEligible = max(p.maxEligible, s.Eligible)
	p.durations = append(p.durations, s.Duration.Seconds())
	if s.Error != "" {
		p.failed++
	}
}

const (
	idleBefore = iota
	load
	idleAfter
	warmup // the cursor's first cycles: they walk the backlog once
)

type scaleResult struct {
	phases     [4]phase
	refused    int // calls answered 429, whole run
	tr         *tracker
	duplicates int
	elapsed    time.Duration
	endpoints  map[string]int // the load's calls, by endpoint
}

// runScale runs the three phases; see BenchmarkScale.
func runScale(t testing.TB, cfg scaleCfg) *scaleResult {
	start := time.Now()
	wall := &wallClock{}
	e, keys := newScaleEnv(t, cfg, wall)
	res := &scaleResult{tr: newTracker(cfg.pollers, cfg.runFor)}
	var mu sync.Mutex
	var cur atomic.Int32
	rec := &recorder{}
	var runs sync.WaitGroup
	var ended sync.Map
	opts := make([]pollcycle.Options, cfg.pollers)
	procs := make([]func(n int64) (pollcycle.Options, *jirapoll.State), cfg.pollers)
	for p := range opts {
		out := scaleOut{rec: rec, tr: res.tr, p: p, e: e, runFor: cfg.runFor, runs: &runs, ended: &ended}
		obs := func(s poll.CycleStats) {
			mu.Lock()
			defer mu.Unlock()
			res.phases[cur.Load()].add(s)
		}
		opts[p], _ = e.scalePoller(cfg, fmt.Sprintf("poller-%d", p), p, out, obs, wall)
		procs[p] = e.oneShotProcess(t, cfg, p, out, obs, wall)
	}
	each := func(f func(p int)) {
		var wg sync.WaitGroup
		for p := range opts {
			wg.Add(1)
			go func() { defer wg.Done(); f(p) }()
		}
		wg.Wait()
	}
	cycle := func(p int) {
		n := res.tr.started[p].Add(1)
		o, st := opts[p], (*jirapoll.State)(nil)
		if cfg.oneShot {
			o, st = procs[p](n)
		}
		_, _ = pollcycle.Run(context.Background(), o) // a failed cycle shows in the phase's failed count
		st.Save()
		st.Close()
	}
	cycles := func(n int) func() {
		return func() {
			each(func(p int) {
				for range n {
					cycle(p)
				}
			})
		}
	}
	idle := cycles(cfg.idle)
	cur.Store(warmup)
	warm := cfg.warmup
	if *scaleCursor == "off" {
		warm = 0 // without a cursor there is nothing to warm up
	}
	for range warm { // rounds until a round is idle (≤ 2 calls a poller)
		mu.Lock()
		before := res.phases[warmup].calls
		mu.Unlock()
		cycles(1)()
		mu.Lock()
		spent := res.phases[warmup].calls - before
		mu.Unlock()
		if spent <= idleTarget()*cfg.pollers {
			break
		}
	}
	cur.Store(idleBefore)
	idle()
	if !cfg.idleOnly {
		cur.Store(load)
		e.sim.ResetCalls()
		runLoad(e, wall, cfg, keys, res.tr, each, cycle)
		res.endpoints = e.sim.Calls()
		runs.Wait()              // every run ended and released its lock
		wall.Advance(cfg.margin) // the load's updates age past the cursor margin
		cur.Store(idleAfter)
		idle()
	}
	res.refused = e.sim.RateLimited()
	for _, n := range res.tr.runs {
		res.duplicates += n - 1
	}
	res.elapsed = time.Since(start)
	return res
}

// runLoad writes the comments at their planned times while every poller
// starts a cycle each interval (at once when the last one ran late), for
// cfg.cycles cycles and then until every change was dispatched, at most
// 3×cfg.cycles cycles in all.
func runLoad(e *env, wall *wallClock, cfg scaleCfg, keys []string, tr *tracker, each func(func(int)), cycle func(int)) {
	window := time.Duration(cfg.cycles) * cfg.interval
	plan := loadPlan(cfg, keys, window)
	begin := wall.Now()
	var commented atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, d := range plan {
			wall.WaitUntil(begin.Add(d.at.Sub(time.Time{})))
			tr.comment(e, d.key)
		}
		commented.Store(true)
	}()
	each(func(p int) {
		next := begin
		for n := 0; n < cfg.cycles || (n < 3*cfg.cycles && !(commented.Load() && tr.pending() == 0)); n++ {
			wall.WaitUntil(next)
			next = wall.Now().Add(cfg.interval)
			cycle(p)
		}
	})
	<-done // a drain cut short: the comments still to come count as lost
}

// mark is ✓ when ok, else ✗.
// idleTarget is the most Jira calls an idle cycle may cost: 2, and 1
// more for the sweep of scheduled discovery.
func idleTarget() int {
	if *scaleScheduled {
		return 3
	}
	return 2
}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

func perCycle(p phase) float64 { return float64(p.calls) / float64(max(p.cycles, 1)) }

// print writes the figures, each next to the target of issue 17 (docs/polling.md "Sizing").
func (r *scaleResult) print(w io.Writer, cfg scaleCfg) {
	what := fmt.Sprintf("%d comments on %d issues over %d cycles", cfg.comments, cfg.commented, cfg.cycles)
	if cfg.idleOnly {
		what = "idle cycles only"
	}
	if cfg.tied {
		what += ", every issue updated in one millisecond"
	}
	switch {
	case cfg.oneShot && cfg.noState:
		what += ", one-shot pollers without a state directory"
	case cfg.oneShot:
		what += ", one-shot pollers with a state directory"
	}
	fmt.Fprintf(w, "\nscale: %d issues, %d pollers, N=%d, M=%d, interval %s, jitter ≤%s, latency %s, search lag %s, budget %d/s, burst limit %d/s, %s, seed %d (%s)\n",
		cfg.issues, cfg.pollers, cfg.n, cfg.m, cfg.interval, cfg.jitter, cfg.latency, cfg.searchLag, cfg.budget, cfg.burstLimit,
		what, cfg.seed, r.elapsed.Round(time.Second))
	row := func(name, got, target string, ok bool) {
		fmt.Fprintf(w, "  %-44s %14s   %-10s %s\n", name, got, target, mark(ok))
	}
	before, ld, after := r.phases[idleBefore], r.phases[load], r.phases[idleAfter]
	if wu := r.phases[warmup]; wu.cycles > 0 {
		fmt.Fprintf(w, "  %-44s %14s\n", "warm-up Jira calls per cycle (first cursor)", fmt.Sprintf("%.1f over %d", perCycle(wu), wu.cycles))
	}
	idle := idleTarget()
	row("idle Jira calls per cycle (before load)", fmt.Sprintf("%.1f", perCycle(before)), fmt.Sprintf("≤ %d", idle), perCycle(before) <= float64(idle))
	var calls int
	for _, p := range r.phases {
		calls += p.calls
	}
	share := 100 * float64(r.refused) / float64(max(calls, 1))
	if cfg.idleOnly {
		row("calls answered 429", fmt.Sprintf("%.1f%%", share), "≤ 10 %", share <= 10)
		fmt.Fprintf(w, "  %-44s %14s\n", "idle cycles (failed)", fmt.Sprintf("%d (%d)", before.cycles, before.failed))
		return
	}
	row("idle Jira calls per cycle (after load)", fmt.Sprintf("%.1f", perCycle(after)), fmt.Sprintf("≤ %d", idle), perCycle(after) <= float64(idle))
	var secs, ready, cyc []float64
	lost, over := 0, 0
	for _, c := range r.tr.changes {
		if c.done.IsZero() {
			lost++
			continue
		}
		secs = append(secs, c.done.Sub(c.at).Seconds())
		ready = append(ready, c.done.Sub(c.ready).Seconds())
		cyc = append(cyc, float64(c.cycles))
		if c.cycles > int64((c.backlog+cfg.n*cfg.pollers-1)/(cfg.n*cfg.pollers)+2) {
			over++
		}
	}
	perChange := float64(ld.calls) / float64(max(len(secs), 1))
	row("Jira calls per dispatched change (load)", fmt.Sprintf("%.1f", perChange), "≤ 6", perChange <= 6)
	fmt.Fprintf(w, "    %s\n", endpoints(r.endpoints, len(secs)))
	row("changes lost", fmt.Sprintf("%d of %d", lost, len(r.tr.changes)), "0", lost == 0)
	row("duplicate dispatches", fmt.Sprint(r.duplicates), "0", r.duplicates == 0)
	for k, n := range r.tr.runs {
		if n > 1 {
			fmt.Fprintf(w, "    %s dispatched %d times\n", k, n)
		}
	}
	lostPct := 100 * float64(ld.lost) / float64(max(ld.attempted, 1))
	row("locks lost to collision / lock attempts", fmt.Sprintf("%d/%d %.1f%%", ld.lost, ld.attempted, lostPct), "< 3 %", lostPct < 3)
	skipPct := 100 * float64(ld.lost+ld.skipped) / float64(max(ld.selected, 1))
	fmt.Fprintf(w, "  %-44s %14s\n", "selected items lost or skipped (collision)", fmt.Sprintf("%d/%d %.1f%%", ld.lost+ld.skipped, ld.selected, skipPct))
	slices.Sort(secs)
	slices.Sort(ready)
	slices.Sort(cyc)
	slices.Sort(ld.durations)
	fmt.Fprintf(w, "  %-44s %14s\n", "time to dispatch p50 / p95 / max (s)",
		fmt.Sprintf("%.1f / %.1f / %.1f", pct(secs, 50), pct(secs, 95), pct(secs, 100)))
	fmt.Fprintf(w, "  %-44s %14s\n", "  from dispatchable (its issue's run ended) (s)",
		fmt.Sprintf("%.1f / %.1f / %.1f", pct(ready, 50), pct(ready, 95), pct(ready, 100)))
	fmt.Fprintf(w, "  %-44s %14s\n", "  in the dispatching poller's cycles", fmt.Sprintf("%.0f / %.0f / %.0f", pct(cyc, 50), pct(cyc, 95), pct(cyc, 100)))
	row("changes later than ⌈backlog/(N·pollers)⌉+2 cycles", fmt.Sprintf("%d of %d", over, len(cyc)), "0", over == 0)
	fmt.Fprintf(w, "  %-44s %14d\n", "largest eligible backlog seen by a cycle", ld.maxEligible)
	fmt.Fprintf(w, "  %-44s %14s\n", "load cycle duration p50 / max (s)", fmt.Sprintf("%.2f / %.2f", pct(ld.durations, 50), pct(ld.durations, 100)))
	row("calls answered 429 (whole run)", fmt.Sprintf("%d/%d %.1f%%", r.refused, calls, share), "≤ 10 %", share <= 10)
	fmt.Fprintf(w, "  %-44s %14s\n", "poller cycles (idle before / load / after)", fmt.Sprintf("%d / %d / %d", before.cycles, ld.cycles, after.cycles))
	fmt.Fprintf(w, "  %-44s %14d\n", "failed cycles", before.failed+ld.failed+after.failed)
}

// endpoints is the load's calls per dispatched change, by endpoint, the
// most used first.
func endpoints(calls map[string]int, changes int) string {
	type ep struct {
		name string
		n    int
	}
	var eps []ep
	for k, n := range calls {
		name := strings.NewReplacer("/rest/api/3/", "", "{issueIdOrKey}", "{issue}", "{propertyKey}", "{key}",
			"{projectIdOrKey}", "{project}").Replace(k)
		eps = append(eps, ep{name, n})
	}
	slices.SortFunc(eps, func(a, b ep) int { return b.n - a.n })
	var parts []string
	for _, e := range eps {
		parts = append(parts, fmt.Sprintf("%s %.2f", e.name, float64(e.n)/float64(max(changes, 1))))
	}
	return "per change: " + strings.Join(parts, ", ")
}

// pct is the p-th percentile of sorted (0 when empty).
func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
