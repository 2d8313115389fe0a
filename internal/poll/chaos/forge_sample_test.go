package chaos_test

// What the forge modes sample: every 20 ms, each scope's runs, split
// into the samples of a settled scope and the others. A scope is settled
// when every process that may have dispatched, cancelled or re-run one
// of its runs since its last such change has exited (each dispatcher
// settles the runs it writes before it exits, or died): its state is the
// one the dispatchers left. Until then its state is transient.

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/newest"
)

// lifetimes tracks the live processes that dispatch (pollers, webhook
// deliveries) by their start.
type lifetimes struct {
	mu   sync.Mutex
	next int64
	live map[int64]time.Time
}

// begin records a process starting now; the function returned records
// its end.
func (l *lifetimes) begin() (end func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	id := l.next
	l.live[id] = time.Now()
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.live, id)
	}
}

// settled reports whether every process started at or before t has
// ended.
func (l *lifetimes) settled(t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.live {
		if !s.After(t) {
			return false
		}
	}
	return true
}

// scopeStats are the sample counts of one kind (settled, or transient).
type scopeStats struct {
	samples    int
	maxWaiting int
	twoWaiting int // samples with more than one run waiting
	stale      int // samples whose newest change is owed and carried by no live run that has not started its agent
	longest    time.Duration
}

// forgeCounts are the forge modes' figures.
type forgeCounts struct {
	processes, kills, changes, webhooks, dropped, superseded atomic.Int64
	lives                                                    lifetimes
	mu                                                       sync.Mutex
	started                                                  map[int64]forgeRun // run id → the run, when it started its agent
	agents                                                   map[string]int     // scope → agents running now
	maxAgents, maxActive                                     int                // per scope, over every sample
	staleStarts                                              int                // agents started while a newer change of their scope was owed
	settled, transient                                       scopeStats
	prev                                                     map[int64]forgeRun   // the last sample's runs
	changed                                                  map[string]time.Time // scope → when a dispatcher last changed its runs
	episode                                                  map[string]time.Time // scope → when its transient anomaly began
	shown                                                    int                  // settled anomalies printed
	commentAt                                                map[int64]time.Time
	commentOf                                                map[int64]int // comment id → subject
}

func newForgeCounts() *forgeCounts {
	return &forgeCounts{started: map[int64]forgeRun{}, agents: map[string]int{}, prev: map[int64]forgeRun{},
		changed: map[string]time.Time{}, episode: map[string]time.Time{}, lives: lifetimes{live: map[int64]time.Time{}},
		commentAt: map[int64]time.Time{}, commentOf: map[int64]int{}}
}

// begun records a run that started its agent, and whether, when its
// check began (before), a run of a newer change of its scope was there
// and neither started nor covered by a started run (a stale start).
func (c *forgeCounts) begun(r forgeRun, before []forgeRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started[r.id] = r
	c.agents[r.scope]++
	c.maxAgents = max(c.maxAgents, c.agents[r.scope])
	p, _ := newest.Change(r.key)
	for _, o := range before {
		q, ok := newest.Change(o.key)
		if o.scope != r.scope || !ok || !q.After(p) {
			continue
		}
		if _, ran := c.started[o.id]; !ran && !c.covered(r.scope, q) {
			c.staleStarts++
			return
		}
	}
}

// ended records a run whose agent ended.
func (c *forgeCounts) ended(r forgeRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.agents[r.scope]--
}

// covered reports whether a run of scope that started its agent carries
// the change at p or a newer one. The caller holds c.mu.
func (c *forgeCounts) covered(scope string, p changepos.Pos) bool {
	for _, s := range c.started {
		if q, ok := newest.Change(s.key); ok && s.scope == scope && q.Compare(p) >= 0 {
			return true
		}
	}
	return false
}

// dispatcherChange reports whether r differs from its last sample (o,
// ok) by what only a dispatcher does: it is new, was cancelled, or was
// queued again (a re-run).
func dispatcherChange(r, o forgeRun, ok bool) bool {
	switch {
	case !ok:
		return true
	case r.cancelled && !o.cancelled:
		return true
	default:
		ended := !o.waiting && !o.admitted && !o.active
		return ended && (r.waiting || r.admitted)
	}
}

// scopeState is one scope in one sample.
type scopeState struct {
	active, waiting int
	runs            []forgeRun
}

// sample counts, per scope, the active and waiting runs and whether the
// scope's newest change is owed (no run that started its agent carries
// it or a newer one) without a live run that has not started its agent
// carrying it, into the settled or the transient figures.
func (c *forgeCounts) sample(rs []forgeRun, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	by := map[string]*scopeState{}
	seen := map[int64]forgeRun{}
	for _, r := range rs {
		o, ok := c.prev[r.id]
		if dispatcherChange(r, o, ok) {
			c.changed[r.scope] = now
		}
		seen[r.id] = r
		s := by[r.scope]
		if s == nil {
			s = &scopeState{}
			by[r.scope] = s
		}
		s.runs = append(s.runs, r)
		s.active += btoi(r.active || r.admitted)
		s.waiting += btoi(r.waiting)
	}
	c.prev = seen
	for sc, s := range by {
		c.maxActive = max(c.maxActive, s.active)
		stale := c.owedUncarried(sc, s.runs)
		st, settled := &c.transient, c.lives.settled(c.changed[sc])
		if settled {
			st = &c.settled
		}
		st.samples++
		st.maxWaiting = max(st.maxWaiting, s.waiting)
		st.twoWaiting += btoi(s.waiting > 1)
		st.stale += btoi(stale)
		if s.waiting <= 1 && !stale {
			delete(c.episode, sc)
			continue
		}
		if _, ok := c.episode[sc]; !ok {
			c.episode[sc] = now
		}
		st.longest = max(st.longest, now.Sub(c.episode[sc]))
		if settled && c.shown < 5 {
			c.shown++
			fmt.Printf("chaos: settled scope %s: %d waiting, newest change owed and not carried: %v; runs %+v\n", sc, s.waiting, stale, s.runs)
		}
	}
}

// owedUncarried reports whether the newest change of runs (one scope's)
// is owed and carried by no live run that has not started its agent.
// The caller holds c.mu.
func (c *forgeCounts) owedUncarried(scope string, runs []forgeRun) bool {
	var n changepos.Pos
	found := false
	for _, r := range runs {
		if p, ok := newest.Change(r.key); ok && (!found || p.After(n)) {
			n, found = p, true
		}
	}
	if !found || c.covered(scope, n) {
		return false
	}
	for _, r := range runs {
		_, ran := c.started[r.id]
		if p, _ := newest.Change(r.key); p.Compare(n) == 0 && !ran && (r.waiting || r.admitted || r.active) {
			return false
		}
	}
	return true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
