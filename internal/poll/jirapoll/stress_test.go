package jirapoll_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// parallelCfg sizes the many-pollers scenario.
type parallelCfg struct {
	pollers, issues, cycles int
	latMin, latMax          time.Duration // emulated latency per call, uniform (real time)
	searchLag               time.Duration // on the world's clock, as the rest below
	interval                time.Duration // between one poller's cycles
	jitter                  time.Duration // max lock jitter
	runFor                  time.Duration // how long a dispatched run holds the lock
}

type parallelResult struct {
	dispatches, duplicates, lost int
	cycles                       int64
	elapsed                      time.Duration
}

// runParallel: every issue gets one /fs-triage comment at a random time
// of the world's clock while each poller runs its first cfg.cycles
// cycles; pollers then go on until every change was dispatched to both
// matching harnesses (triage and audit) or a drain budget of 3×cycles
// cycles is spent. A simulated runner releases each run's lock runFor
// after its dispatch. The pollers run concurrently against the emulator's
// real latency; time on the site moves with the world's clock only: each
// poller's interval, its jitter and the emulator's own ticks.
func runParallel(t testing.TB, cfg parallelCfg) parallelResult {
	var latMu sync.Mutex
	latRand := rand.New(rand.NewPCG(1, 2))
	latency := func() time.Duration {
		latMu.Lock()
		defer latMu.Unlock()
		return cfg.latMin + time.Duration(latRand.Int64N(int64(cfg.latMax-cfg.latMin)+1))
	}
	e := newEnv(t, jirasim.Options{Latency: latency, SearchLag: cfg.searchLag})
	keys := e.issues(cfg.issues, seeded, "")
	sch := newSchedule(e, keys, time.Duration(cfg.cycles)*cfg.interval, cfg.runFor)
	rec := &recorder{after: sch.dispatched}

	want := 2 * len(keys)
	start := time.Now()
	var cycles atomic.Int64
	var pollers sync.WaitGroup
	for p := 0; p < cfg.pollers; p++ {
		pl := e.poller(pollerOpts{id: fmt.Sprintf("poller-%d", p), out: rec, jitter: cfg.jitter,
			seed: uint64(p + 10), stale: time.Minute})
		pollers.Add(1)
		go func() {
			defer pollers.Done()
			for n := 0; n < cfg.cycles || (n < 4*cfg.cycles && !(sch.allCommented() && len(rec.all()) >= want)); n++ {
				if _, err := pl.cycle(context.Background()); err != nil {
					t.Errorf("%s: %v", pl.drv.Name(), err)
				}
				cycles.Add(1)
				sch.step(cfg.interval)
			}
		}()
	}
	pollers.Wait()

	res := parallelResult{cycles: cycles.Load(), elapsed: time.Since(start)}
	counts := rec.count()
	for _, k := range keys {
		for _, h := range []string{"triage", "audit"} {
			n := counts[k+"/"+h]
			res.dispatches += n
			if n == 0 {
				res.lost++
			} else {
				res.duplicates += n - 1
			}
		}
	}
	return res
}

// schedule drives the parallel scenario on the world's clock: the
// comments due by now are added and the runs due to end release their
// locks whenever a poller finishes a cycle.
type schedule struct {
	e        *env
	runFor   time.Duration
	mu       sync.Mutex
	comments []due // by time
	runs     []due // runs that have not ended
}

type due struct {
	at  time.Time
	key string   // the issue to comment on
	run plan.Run // the run to end
}

// newSchedule spreads one comment per key at random over window.
func newSchedule(e *env, keys []string, window, runFor time.Duration) *schedule {
	r := rand.New(rand.NewPCG(3, 4))
	s := &schedule{e: e, runFor: runFor}
	start := e.clock.Now()
	for _, k := range keys {
		s.comments = append(s.comments, due{at: start.Add(time.Duration(r.Int64N(int64(window)))), key: k})
	}
	sort.Slice(s.comments, func(a, b int) bool { return s.comments[a].at.Before(s.comments[b].at) })
	return s
}

// dispatched is the output driver's hook: run ends runFor from now.
func (s *schedule) dispatched(run plan.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs = append(s.runs, due{at: s.e.clock.Now().Add(s.runFor), run: run})
}

// step lets interval pass, then adds the comments now due and ends the
// runs now due (each releases its lock while it still carries its id).
func (s *schedule) step(interval time.Duration) {
	s.e.clock.Advance(interval)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.e.clock.Now()
	for len(s.comments) > 0 && !s.comments[0].at.After(now) {
		s.e.sim.AddComment(s.comments[0].key, alice, "/fs-triage go")
		s.comments = s.comments[1:]
	}
	var running []due
	for _, d := range s.runs {
		if d.at.After(now) {
			running = append(running, d)
			continue
		}
		key, prop, err := parseRef(d.run)
		if err != nil {
			s.e.t.Error(err)
			continue
		}
		if l, ok := s.e.lock(key); ok && l.ID == d.run.PollLock.ID {
			s.e.sim.SetPropertyDirect(key, prop, nil)
		}
	}
	s.runs = running
}

func (s *schedule) allCommented() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.comments) == 0
}

func parseRef(run plan.Run) (string, string, error) {
	if run.PollLock == nil {
		return "", "", fmt.Errorf("run %s has no poll lock", run.Key)
	}
	return splitRef(run.PollLock.Property)
}

// Prove-it 2 (latency scaled down to 1–10 ms to keep `go test` fast;
// BenchmarkParallelPollersFullLatency runs the 20–200 ms version): 4 pollers, 100 issues, one triggering comment each at
// random times over 20 cycles → every change dispatched exactly once per
// matching harness.
func TestParallelPollersNoLossNoDuplicates(t *testing.T) {
	t.Parallel()
	res := runParallel(t, parallelCfg{pollers: 4, issues: 100, cycles: 20,
		latMin: time.Millisecond, latMax: 10 * time.Millisecond, searchLag: 10 * time.Millisecond,
		interval: 10 * time.Millisecond, jitter: 30 * time.Millisecond, runFor: 20 * time.Millisecond})
	t.Logf("dispatches=%d duplicates=%d lost=%d poller cycles=%d elapsed=%s",
		res.dispatches, res.duplicates, res.lost, res.cycles, res.elapsed.Round(time.Millisecond))
	if res.lost != 0 {
		t.Errorf("%d changes lost", res.lost)
	}
	if res.duplicates != 0 {
		t.Errorf("%d duplicate dispatches", res.duplicates)
	}
}

// Prove-it 5: 200 eligible issues, one poller, N=5 → every issue is
// dispatched within 42 cycles.
func TestNoStarvation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(200, seeded, "/fs-triage")
	rec := &recorder{}
	p := e.poller(pollerOpts{out: rec, seed: 99})
	firstSeen := map[string]int{}
	cycle := 0
	for cycle < 60 && len(firstSeen) < len(keys) {
		cycle++
		p.mustCycle()
		for _, r := range rec.all() {
			if _, ok := firstSeen[r.Event.Entity.Key]; !ok {
				firstSeen[r.Event.Entity.Key] = cycle
			}
		}
		e.releaseAll(keys) // the runs finished
	}
	worst := 0
	for _, k := range keys {
		c, ok := firstSeen[k]
		if !ok {
			t.Errorf("%s never dispatched in %d cycles", k, cycle)
			continue
		}
		worst = max(worst, c)
	}
	t.Logf("all %d issues dispatched; worst wait %d cycles", len(firstSeen), worst)
	if worst > 42 {
		t.Errorf("worst wait %d cycles, want at most 42", worst)
	}
	if got := len(rec.all()); got != 2*len(keys) {
		t.Errorf("%d dispatches, want %d (triage and audit once per issue)", got, 2*len(keys))
	}
}
