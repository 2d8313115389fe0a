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
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
	id        int64
	scope     string // scope key
	key       string // idempotency key
	comment   int64  // the change's comment or note id (0: none)
	waiting   bool   // queued behind the scope's active run (GitHub pending, GitLab created or waiting_for_resource)
	admitted  bool   // may start now (GitHub queued, GitLab pending: holds the resource)
	active    bool   // running
	cancelled bool   // cancelled (or skipped); ended otherwise when none of the above
}

// world is one forge's emulator, driven by the benchmark.
type world interface {
	// comment makes a triggering comment on subject i and returns its id,
	// its time on the forge and the webhook path's dispatch of it.
	comment(i int) (id int64, at time.Time, deliver func() error)
	runs() []forgeRun
	begin(r forgeRun) error // the platform starts the run's job (an error: it was cancelled meanwhile)
	// start is what the running job's `fullsend run` does before its
	// agent (the product's start-up check, with the job's environment);
	// false: it exits without its agent.
	start(ctx context.Context, r forgeRun) bool
	running(r forgeRun) bool // the run is still running (not cancelled)
	finish(r forgeRun) error // the job ends
	configDir(b *testing.B) string
	env() []string
	binary() string // the fullsend binary
	// requests is how many API requests the emulator counted, and what
	// it counts.
	requests() (int, string)
}

func benchForge(b *testing.B, w world) {
	bin, dir := w.binary(), w.configDir(b)
	c := newForgeCounts()
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
				done := c.lives.begin()
				pollProcess(bin, dir, env, rng, kill.Load(), &c.processes, &c.kills)
				done()
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
			done := c.lives.begin()
			go func() {
				defer hooks.Done()
				defer done()
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
// platform admits starts its job, which runs the start-up check and then
// its agent for -chaos.run-time (or exits without it); every 20 ms each
// scope's runs are sampled.
func runForge(ctx context.Context, w world, c *forgeCounts) {
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		rs := w.runs()
		c.sample(rs, time.Now())
		for _, r := range rs {
			if !r.admitted || seen[r.id] {
				continue
			}
			seen[r.id] = true
			wg.Add(1)
			go func() { defer wg.Done(); job(ctx, w, c, r) }()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// job is one admitted run's job: started by the platform, its start-up
// check, then its agent or an exit without it.
func job(ctx context.Context, w world, c *forgeCounts, r forgeRun) {
	if err := w.begin(r); err != nil {
		return // cancelled before a runner took it
	}
	before := w.runs() // what existed when its check began
	if !w.start(ctx, r) {
		c.superseded.Add(1)
		_ = w.finish(r)
		return
	}
	if !w.running(r) {
		return // cancelled during its check: the job is gone before its agent
	}
	c.begun(r, before)
	time.Sleep(*runTime)
	c.ended(r)
	_ = w.finish(r)
}

// mayStart is what `fullsend run` makes of its start-up check's answer:
// the agent starts unless the run yields; a failed check is printed and
// the agent starts.
func mayStart(r forgeRun, yield bool, err error) bool {
	if err != nil {
		fmt.Printf("chaos: start-up check of run %d failed, the agent runs: %v\n", r.id, err)
	}
	return !yield
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
