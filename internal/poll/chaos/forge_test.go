package chaos_test

// The forge modes (-chaos.forge=github, -chaos.forge=gitlab): the
// webhook path (`fullsend dispatch` with gha-event or gitlab-event, one
// process per change, never killed) races -chaos.pollers `fullsend poll`
// processes of the forge's poller at grace 0s (the primary path too),
// killed with SIGKILL at random like the Jira mode's, against the
// emulator's concurrency semantics (GitHub's concurrency groups, GitLab's
// resource groups). A simulated runner starts what the platform lets
// start and samples every scope's runs.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/newest"
)

var (
	forge    = flag.String("chaos.forge", "jira", "jira (jira-poll), github (github-poll racing gha-event) or gitlab (gitlab-poll racing gitlab-event)")
	subjects = flag.Int("chaos.subjects", 4, "forge modes: issues (github) or merge requests (gitlab) commented on")
	drop     = flag.Float64("chaos.drop", 0.2, "forge modes: probability that a change's webhook delivery is dropped (left to the pollers)")
	runTime  = flag.Duration("chaos.run-time", time.Second, "forge modes: how long a started run works")
)

// forgeRun is one run (GitHub) or pipeline (GitLab) as the benchmark
// reads it from the emulator.
type forgeRun struct {
	id       int64
	scope    string // scope key
	key      string // idempotency key
	comment  int64  // the change's comment or note id (0: none)
	waiting  bool   // queued behind the scope's active run (GitHub pending, GitLab waiting_for_resource)
	admitted bool   // may start now (GitHub queued, GitLab pending: holds the resource)
	active   bool   // running
}

// world is one forge's emulator, driven by the benchmark.
type world interface {
	// comment makes a triggering comment on subject i and returns its id,
	// its time on the forge and the webhook path's dispatch of it.
	comment(i int) (id int64, at time.Time, deliver func() error)
	runs() []forgeRun
	// start runs what an admitted run's job does before its agent (GitLab:
	// the superseded check); false: it exits without an agent.
	start(ctx context.Context, r forgeRun) bool
	begin(r forgeRun) error  // the run starts its agent
	finish(r forgeRun) error // and ends
	configDir(b *testing.B) string
	env() []string
	binary() string // the fullsend binary
}

// forgeCounts are the forge modes' figures.
type forgeCounts struct {
	processes, kills, changes, webhooks, dropped, superseded atomic.Int64
	mu                                                       sync.Mutex
	started                                                  map[int64]forgeRun // run id → the run, when it started its agent
	staleStarts                                              int                // runs started while a newer change of their scope waited or was dropped unstarted
	maxActive, maxWaiting                                    int                // per scope, over all samples
	samples, twoWaiting, staleSamples                        int                // scope samples; with two runs waiting; whose waiting runs lack the newest change owed
	commentAt                                                map[int64]time.Time
	commentOf                                                map[int64]int // comment id → subject
}

func benchForge(b *testing.B, w world) {
	bin, dir := w.binary(), w.configDir(b)
	c := &forgeCounts{started: map[int64]forgeRun{}, commentAt: map[int64]time.Time{}, commentOf: map[int64]int{}}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); runForge(ctx, w, c) }()
	kill := &atomic.Bool{}
	kill.Store(true)
	pollCtx, stopPollers := context.WithCancel(context.Background())
	var pw sync.WaitGroup
	for i := range *pollers {
		env := append(slices.Clone(w.env()), "XDG_CACHE_HOME="+b.TempDir())
		pw.Add(1)
		go func() {
			defer pw.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 11))
			for pollCtx.Err() == nil {
				pollProcess(bin, dir, env, rng, kill.Load(), &c.processes, &c.kills)
			}
		}()
	}
	b.ResetTimer()
	var hooks sync.WaitGroup
	rng := rand.New(rand.NewPCG(5, 13))
	for end := time.Now().Add(*duration); time.Now().Before(end); {
		i := rng.IntN(*subjects)
		id, at, deliver := w.comment(i)
		c.mu.Lock()
		c.commentAt[id], c.commentOf[id] = at, i
		c.mu.Unlock()
		c.changes.Add(1)
		if rng.Float64() < *drop {
			c.dropped.Add(1)
		} else {
			hooks.Add(1)
			go func() {
				defer hooks.Done()
				if err := deliver(); err != nil {
					fmt.Printf("chaos: webhook path: %v\n", err)
				}
				c.webhooks.Add(1)
			}()
		}
		time.Sleep(time.Duration(100+rng.IntN(300)) * time.Millisecond)
	}
	hooks.Wait()
	kill.Store(false)
	drainForge(w, 30*time.Second)
	stopPollers()
	pw.Wait()
	drainForge(w, 15*time.Second) // the runs the last pollers dispatched
	stop()
	wg.Wait()
	b.StopTimer()
	reportForge(b, w, c)
}

// runForge plays the platform's runners until ctx ends: every run the
// platform admits starts (after its job's start-up check) and ends after
// -chaos.run-time; every 20 ms each scope's runs are sampled.
func runForge(ctx context.Context, w world, c *forgeCounts) {
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		rs := w.runs()
		c.sample(rs)
		for _, r := range rs {
			if !r.admitted || seen[r.id] {
				continue
			}
			seen[r.id] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				if !w.start(ctx, r) {
					c.superseded.Add(1)
					_ = w.finish(r)
					return
				}
				if err := w.begin(r); err != nil {
					return // cancelled meanwhile
				}
				c.begun(r, w.runs())
				time.Sleep(*runTime)
				_ = w.finish(r)
			}()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// begun records a run that started its agent, and whether a newer change
// of its scope was dispatched and had neither started nor been covered by
// a started run (a stale start).
func (c *forgeCounts) begun(r forgeRun, all []forgeRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started[r.id] = r
	p, _ := newest.Change(r.key)
	for _, o := range all {
		q, ok := newest.Change(o.key)
		if o.scope != r.scope || !ok || !q.After(p) || o.active {
			continue
		}
		if _, ran := c.started[o.id]; !ran {
			c.staleStarts++
			return
		}
	}
}

// sample counts, per scope, the active and the waiting runs, and
// whether the scope's waiting runs carry its newest change still owed: a
// sample is stale when a run of a newer change than every waiting one
// was cancelled before it started and no run that started, holds the
// scope or waits carries that change or a newer one.
func (c *forgeCounts) sample(rs []forgeRun) {
	type live struct {
		active, waiting  int
		waits, kept, cut changepos.Pos // newest change waiting; started or holding; cancelled unstarted
	}
	by := map[string]*live{}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range rs {
		l := by[r.scope]
		if l == nil {
			l = &live{}
			by[r.scope] = l
		}
		p, _ := newest.Change(r.key)
		_, ran := c.started[r.id]
		switch {
		case r.active || r.admitted || ran:
			l.active += btoi(r.active || r.admitted)
			l.kept = later(l.kept, p)
		case r.waiting:
			l.waiting++
			l.waits = later(l.waits, p)
		default:
			l.cut = later(l.cut, p)
		}
	}
	for _, l := range by {
		c.samples++
		c.maxActive, c.maxWaiting = max(c.maxActive, l.active), max(c.maxWaiting, l.waiting)
		if l.waiting > 1 {
			c.twoWaiting++
		}
		if l.waiting > 0 && l.cut.After(l.waits) && l.cut.After(l.kept) {
			c.staleSamples++
		}
	}
}

func later(a, b changepos.Pos) changepos.Pos {
	if b.After(a) {
		return b
	}
	return a
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// drainForge waits until no run is waiting or running for 3 s, or max.
func drainForge(w world, max time.Duration) {
	since := time.Now()
	for end := time.Now().Add(max); time.Now().Before(end) && time.Since(since) < 3*time.Second; {
		time.Sleep(200 * time.Millisecond)
		if slices.ContainsFunc(w.runs(), func(r forgeRun) bool { return r.waiting || r.admitted || r.active }) {
			since = time.Now()
		}
	}
}

// reportForge: lost changes (per subject and harness, the comments made
// after the newest comment a started run carried, by the forge's time,
// then id), split into those made in the same second as an earlier
// comment of their subject (GitHub's one-second timestamps) and the
// others; duplicates (a comment started more than once by one harness);
// the most active and waiting runs a scope had at once; stale starts.
func reportForge(b *testing.B, w world, c *forgeCounts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	type hs struct {
		subject int
		harness string
	}
	newestRun := map[hs]changepos.Pos{}
	perChange := map[string][]int64{}
	for _, r := range c.started {
		if r.comment == 0 {
			continue
		}
		k := hs{c.commentOf[r.comment], harnessOf(r.scope)}
		ch := fmt.Sprintf("%s comment %d", r.scope, r.comment)
		perChange[ch] = append(perChange[ch], r.id)
		if p := (changepos.Pos{At: c.commentAt[r.comment], ID: r.comment}); p.After(newestRun[k]) {
			newestRun[k] = p
		}
	}
	dups := 0
	for ch, ids := range perChange {
		dups += len(ids) - 1
		if len(ids) > 1 {
			fmt.Printf("chaos: duplicate %s: runs %v\n", ch, ids)
		}
	}
	ids := make([]int64, 0, len(c.commentAt))
	for id := range c.commentAt {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	lostSame, lostOther := 0, 0
	for _, id := range ids {
		for _, h := range harnesses {
			k := hs{c.commentOf[id], h}
			if !(changepos.Pos{At: c.commentAt[id], ID: id}).After(newestRun[k]) {
				continue
			}
			if sameSecond(c, id) {
				lostSame++
			} else {
				lostOther++
			}
		}
	}
	left := 0
	for _, r := range w.runs() {
		if r.waiting || r.admitted || r.active {
			left++
		}
	}
	m := map[string]float64{"processes": float64(c.processes.Load()), "kills": float64(c.kills.Load()),
		"changes": float64(c.changes.Load()), "webhooks": float64(c.webhooks.Load()), "dropped": float64(c.dropped.Load()),
		"runs": float64(len(w.runs())), "started": float64(len(c.started)), "superseded_exits": float64(c.superseded.Load()),
		"lost": float64(lostSame + lostOther), "lost_same_second": float64(lostSame), "duplicates": float64(dups),
		"max_active_per_scope": float64(c.maxActive), "max_waiting_per_scope": float64(c.maxWaiting),
		"stale_starts": float64(c.staleStarts), "samples_two_waiting": float64(c.twoWaiting),
		"samples_stale_waiting": float64(c.staleSamples), "runs_left": float64(left)}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
		b.ReportMetric(m[k], k)
	}
	sort.Strings(names)
	fmt.Printf("chaos %s:", *forge)
	for _, k := range names {
		fmt.Printf(" %s=%g", k, m[k])
	}
	fmt.Printf(" (scope samples %d)\n", c.samples)
}

// sameSecond reports whether comment id was made in the same second as
// an earlier comment of its subject.
func sameSecond(c *forgeCounts, id int64) bool {
	at := c.commentAt[id].Truncate(time.Second)
	for o, t := range c.commentAt {
		if o < id && c.commentOf[o] == c.commentOf[id] && t.Truncate(time.Second).Equal(at) {
			return true
		}
	}
	return false
}

// harnessOf is the harness a scope key names.
func harnessOf(scopeKey string) string {
	for i := range scopeKey {
		if scopeKey[i] == ':' {
			return scopeKey[:i]
		}
	}
	return scopeKey
}

// forgeConfig writes the configuration of a forge mode: both harnesses on
// /fs-triage, the poller input at grace 0s, the output.
func forgeConfig(b *testing.B, forgeName, input, baseURL, output string) string {
	dir := b.TempDir()
	files := map[string]string{"config.yaml": "version: 1\nrepo: acme/platform\nforge: " + forgeName + "\n" + agentsYAML + `
    - type: ` + input + `
      connection:
        base_url: ` + baseURL + `
      grace: 0s
  output_driver: ` + output + "\n"}
	writeFiles(b, dir, withHarnesses(files))
	return dir
}

// dispatchProcess runs the webhook path's step on payload: `fullsend
// dispatch --input-driver input --output-driver output` with env and
// payloadVar naming the payload's file.
func dispatchProcess(b *testing.B, bin, dir string, env []string, payloadVar string, payload []byte, input, output string) error {
	path := filepath.Join(b.TempDir(), "payload.json")
	if err := os.WriteFile(path, payload, 0o600); err != nil {
		return err
	}
	cmd := exec.Command(bin, "--config-dir", dir, "--log-format", "json", "dispatch",
		"--input-driver", input, "--output-driver", output)
	cmd.Env = append(env, payloadVar+"="+path)
	var errs bytes.Buffer
	cmd.Stderr = &errs
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", input, err, errs.String())
	}
	return nil
}
