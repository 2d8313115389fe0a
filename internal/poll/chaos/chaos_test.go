package chaos_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

var (
	duration = flag.Duration("chaos.duration", 4*time.Minute, "how long pollers are killed at random")
	pKill    = flag.Float64("chaos.kill", 0.7, "probability that a poller process is killed during its cycle")
	pollers  = flag.Int("chaos.pollers", 4, "poller processes running at once")
	issues   = flag.Int("chaos.issues", 30, "Jira issues")
	logDir   = flag.String("chaos.logs", "", "directory for each poller process's log (default: discarded)")
	keyTitle = flag.Bool("chaos.key-title", true, "the run workflow's run-name shows the idempotency key (else the shipped run-name)")
	skew     = flag.Duration("chaos.skew", 0, "how far the emulators' clocks run ahead of the pollers' and runners' host clock (e.g. 1h, -1h)")
)

const (
	jiraToken = "chaos-jira-token"
	ghToken   = "ghs_chaosToken"
	stale     = 3 * time.Second
	runFor    = 300 * time.Millisecond
	lockProp  = "fullsend.poll.acme.platform.lock"
)

var harnesses = []string{"triage", "audit"}

// counts are the figures the benchmark reports.
type counts struct {
	processes, kills, changes atomic.Int64
	aborted                   atomic.Int64 // runs whose lock was no longer theirs when they started
	started                   sync.Map     // run id → true: the runs that got their lock (started their agent)
	mu                        sync.Mutex
	agents                    map[string]int // scope (harness and issue) → agents running now
	maxAgents                 int
}

// agent records an agent of scope starting (+1) or ending (-1).
func (c *counts) agent(scope string, d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.agents[scope] += d
	c.maxAgents = max(c.maxAgents, c.agents[scope])
}

// BenchmarkChaos: comments arrive on random issues while -chaos.pollers
// `fullsend poll` processes run one cycle each, back to back, each killed
// with SIGKILL at a random moment with probability -chaos.kill. Every
// dispatched run is taken and released like `fullsend run` does. After
// -chaos.duration the kills stop and pollers drain. Reported: processes
// run, kills, changes, dispatches, lost changes, duplicate runs, locks left.
func BenchmarkChaos(b *testing.B) {
	switch *forge {
	case "github":
		benchForge(b, newGitHubWorld(b))
		return
	case "gitlab":
		benchForge(b, newGitLabWorld(b))
		return
	case "jira":
	default:
		b.Fatalf("-chaos.forge %q: want jira, github or gitlab", *forge)
	}
	bin := build(b)
	services := func() time.Time { return time.Now().Add(*skew) }
	js := jirasim.New(jirasim.Options{RequiredToken: jiraToken, Now: services})
	jiraURL, err := js.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer js.Close()
	js.AddProject("PROJ", "")
	js.SetRole("PROJ", "Developers", "acct-dev")
	wf := githubsim.Workflow{File: "fullsend-run.yml"}
	if *keyTitle {
		wf.RunName = func(in map[string]string) string {
			var wi plan.WorkItem
			_ = json.Unmarshal([]byte(in[plan.InWorkItem]), &wi)
			return githubsim.DisplayTitle(in) + " " + wi.IdempotencyKey
		}
	}
	gs := githubsim.New(githubsim.Options{Token: ghToken, Now: services, Repos: []githubsim.Repo{{FullName: "acme/platform",
		DefaultBranch: "main", Workflows: []githubsim.Workflow{wf}}}})
	ghURL, err := gs.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer gs.Close()
	dir := configDir(b, jiraURL)
	keys := make([]string, *issues)
	for i := range keys {
		keys[i] = js.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"})
	}
	env := append(os.Environ(), "JIRA_TOKEN="+jiraToken, "JIRA_USER_EMAIL=bot@example.com",
		"GITHUB_API_URL="+ghURL, "GITHUB_TOKEN="+ghToken, "GITHUB_REF_NAME=main")
	// The runners read Jira's clock from their client's answers, as
	// `fullsend run` does (runner.LockerFor).
	jiraClock := trackerclock.New(nil)
	client, err := jira.New(jira.Options{BaseURL: jiraURL, Email: "bot@example.com", Token: jiraToken, RPS: 1000, Burst: 1000, Clock: jiraClock})
	if err != nil {
		b.Fatal(err)
	}
	c := counts{agents: map[string]int{}}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	run := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
	run(func() { runners(ctx, gs, client, jiraClock, &c) })
	kill := &atomic.Bool{}
	kill.Store(true)
	pollCtx, stopPollers := context.WithCancel(context.Background())
	var pw sync.WaitGroup
	for i := range *pollers {
		// Each poller's processes share a state directory, as a cron job's
		// do: a process killed at any point leaves it old or whole.
		env := append(slices.Clone(env), "XDG_CACHE_HOME="+b.TempDir())
		pw.Add(1)
		go func() {
			defer pw.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for pollCtx.Err() == nil {
				pollOnce(bin, dir, env, rng, kill.Load(), &c)
			}
		}()
	}
	b.ResetTimer()
	commentRng := rand.New(rand.NewPCG(3, 9))
	for end := time.Now().Add(*duration); time.Now().Before(end); {
		js.AddComment(keys[commentRng.IntN(len(keys))], "acct-dev", "/fs-triage chaos")
		c.changes.Add(1)
		time.Sleep(time.Duration(100+commentRng.IntN(300)) * time.Millisecond)
	}
	kill.Store(false)
	time.Sleep(2*stale + time.Second) // locks of killed pollers go stale; pollers drain
	drainUntilQuiet(gs, 30*time.Second)
	stopPollers()
	pw.Wait()
	time.Sleep(500 * time.Millisecond) // the runners pick up the last runs
	stop()
	wg.Wait()
	b.StopTimer()
	report(b, js, client, gs, keys, &c)
}

// pollOnce runs one `fullsend poll` process; with kill, it is killed with
// SIGKILL at a random moment of its cycle with probability -chaos.kill.
func pollOnce(bin, dir string, env []string, rng *rand.Rand, kill bool, c *counts) {
	pollProcess(bin, dir, env, rng, kill, &c.processes, &c.kills)
}

// pollProcess is pollOnce counting into processes and kills.
func pollProcess(bin, dir string, env []string, rng *rand.Rand, kill bool, processes, kills *atomic.Int64) {
	cmd := exec.Command(bin, "--config-dir", dir, "--log-format", "json", "poll")
	cmd.Env = env
	n := processes.Add(1)
	if *logDir != "" {
		f, err := os.Create(filepath.Join(*logDir, fmt.Sprintf("poll-%05d.log", n)))
		if err != nil {
			panic(err)
		}
		defer f.Close()
		cmd.Stderr = f
	}
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	if killAt(cmd, rng, kill) {
		kills.Add(1)
	}
}

// killAt waits for the started cmd; with kill, it kills it with SIGKILL
// at a random moment of its first 400 ms with probability -chaos.kill,
// and reports whether it did.
func killAt(cmd *exec.Cmd, rng *rand.Rand, kill bool) (killed bool) {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	if kill && rng.Float64() < *pKill {
		select {
		case <-time.After(time.Duration(rng.IntN(400)) * time.Millisecond):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		case <-done:
		}
	}
	<-done
	return killed
}

// runners plays `fullsend run` for every dispatched run: it takes the
// poll lock (phase running) if it still carries the run's lock id, works
// for runFor and releases it; a run whose lock is gone or another's does
// nothing. Every run is then completed on the emulator.
func runners(ctx context.Context, gs *githubsim.Server, client *jira.Client, clock *trackerclock.Clock, c *counts) {
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		for _, r := range gs.Runs() {
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				if playRun(ctx, client, clock, r, c) {
					c.started.Store(r.ID, true)
				} else {
					c.aborted.Add(1)
				}
				_ = gs.CompleteRun(r.ID, "success")
			}()
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// playRun reports whether the run got its lock; while it holds it, its
// agent counts as running.
func playRun(ctx context.Context, client *jira.Client, clock *trackerclock.Clock, r githubsim.Run, c *counts) bool {
	pl, err := runner.ParsePollLock(r.Inputs[plan.InPollLock])
	if err != nil || pl == nil {
		return false
	}
	l, err := runner.NewLocker(runner.JiraStore{API: client}, pl, stale, plan.Ref{Driver: "gha-dispatch", ID: fmt.Sprint(r.ID)})
	if err != nil {
		return false
	}
	l.Now = clock.Now
	if l.Acquire(ctx) != nil {
		return false
	}
	scope := r.Inputs[plan.InSerializationKey]
	c.agent(scope, 1)
	time.Sleep(runFor)
	c.agent(scope, -1)
	_, _ = l.Release(context.WithoutCancel(ctx))
	return true
}

// drainUntilQuiet waits until no run was dispatched for 5 s, or max.
func drainUntilQuiet(gs *githubsim.Server, max time.Duration) {
	last, since := len(gs.Runs()), time.Now()
	for end := time.Now().Add(max); time.Now().Before(end) && time.Since(since) < 5*time.Second; {
		time.Sleep(200 * time.Millisecond)
		if n := len(gs.Runs()); n != last {
			last, since = n, time.Now()
		}
	}
}

// report counts duplicates (a comment run more than once for one
// harness) and lost changes (per issue and harness, the comments newer
// than the newest comment any run started its agent for). Only the runs
// that got their lock count: a run whose lock was taken over exits
// without starting its agent, and the taker dispatched its change again.
// Runs are told apart by their event's comment id, so that the figures do
// not depend on idempotency keys.
func report(b *testing.B, js *jirasim.Server, client *jira.Client, gs *githubsim.Server, keys []string, c *counts) {
	created := map[string]int64{} // comment id → Unix ms
	for _, key := range keys {
		for id, at := range commentTimes(b, client, key) {
			created[id] = at
		}
	}
	all := gs.Runs()
	var runs []githubsim.Run
	for _, r := range all {
		if _, ok := c.started.Load(r.ID); ok {
			runs = append(runs, r)
		}
	}
	perChange := map[string][]string{}
	newest := map[string]int64{} // issue/harness → newest comment dispatched (Unix ms)
	for _, r := range runs {
		var ev event.Event
		_ = json.Unmarshal([]byte(r.Inputs[plan.InNormalizedEvent]), &ev)
		if ev.Transition.Comment == nil {
			continue
		}
		k := ev.Entity.Key + "/" + r.Inputs[plan.InAgent]
		change := k + "/" + ev.Transition.Comment.ID
		perChange[change] = append(perChange[change], fmt.Sprintf("run %d at %s", r.ID, r.CreatedAt.Format("15:04:05.000")))
		newest[k] = max(newest[k], created[ev.Transition.Comment.ID])
	}
	dups := 0
	for change, rs := range perChange {
		dups += len(rs) - 1
		if len(rs) > 1 {
			fmt.Printf("chaos: duplicate %s: %s\n", change, strings.Join(rs, "; "))
		}
	}
	lost, locks := 0, 0
	for _, key := range keys {
		if _, ok := js.Property(key, lockProp); ok {
			locks++
		}
	}
	for id, at := range created {
		for _, h := range harnesses {
			if at > newest[issueOf[id]+"/"+h] {
				lost++
			}
		}
	}
	printReport(b, fmt.Sprintf("jira: %d jira-poll pollers, kill p=%g, %s, emulators' clocks %s off", *pollers, *pKill, *duration, *skew), []figure{
		num("processes", c.processes.Load(), "poller processes"),
		num("kills", c.kills.Load(), "poller processes killed with SIGKILL"),
		num("changes", c.changes.Load(), "comments made"),
		num("dispatches", len(all), "runs created"),
		num("lost", lost, "comment and harness pairs newer than the newest comment a run that got its lock carried"),
		num("duplicates", dups, "agents started twice for one comment and harness"),
		num("locks left", locks, "poll locks still on the issues after the drain"),
		num("max active runs per scope", c.maxAgents, "agents holding the lock at once, per issue and harness"),
		{"max waiting runs per scope settled", "n/a", "no run waits on the platform: the poll lock holds a change in the poller until the lock is free"},
		{"newest change not pending settled", "n/a", "the same: the next cycle dispatches the changes since the checkpoint"},
		num("runs without lock", c.aborted.Load(), "runs whose lock was no longer theirs at their start (the taker dispatched their changes again)"),
	})
}

// commentTimes are the creation times (Unix ms) of the issue's comments
// by comment id; issueOf records each comment's issue.
func commentTimes(b *testing.B, client *jira.Client, key string) map[string]int64 {
	cs, err := client.CommentsSince(context.Background(), key, time.Time{})
	if err != nil {
		b.Fatalf("reading the comments of %s: %v", key, err)
	}
	out := make(map[string]int64, len(cs))
	for _, cm := range cs {
		out[cm.ID] = cm.Created.UnixMilli()
		issueOf[cm.ID] = key
	}
	return out
}

// issueOf maps a comment id to its issue key (filled by commentTimes).
var issueOf = map[string]string{}

// build compiles the fullsend binary once.
func build(b *testing.B) string {
	out := filepath.Join(b.TempDir(), "fullsend")
	cmd := exec.Command("go", "build", "-o", out, "github.com/fullsend-dev/fullsend/cmd/fullsend")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("building fullsend: %v", err)
	}
	return out
}

func configDir(b *testing.B, jiraURL string) string {
	dir := b.TempDir()
	files := map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\n" + agentsYAML + `
    - type: jira-poll
      connection:
        base_url: ` + jiraURL + `
      project: PROJ
      queries:
        - project = PROJ
      lock:
        n: 5
        jitter_min: 10ms
        jitter_max: 60ms
        stale_threshold: ` + stale.String() + `
        refresh_interval: 1s
  output_driver: gha-dispatch
`,
	}
	writeFiles(b, dir, withHarnesses(files))
	return dir
}

// agentsYAML is the configuration's agents, limits and the start of its
// poll inputs.
const agentsYAML = `agents:
  - name: triage
    source: harness/triage.yaml
  - name: audit
    source: harness/audit.yaml
limits:
  runs_per_scope_per_hour: 100000
poll:
  input_drivers:`

// withHarnesses adds the harness files (each on /fs-triage comments) to
// files.
func withHarnesses(files map[string]string) map[string]string {
	for _, h := range harnesses {
		files["harness/"+h+".yaml"] = "role: " + h + `
trigger: >-
  event.transition.kind == "comment_added" &&
  event.transition.comment.command == "/fs-triage"
run:
  command: ["true"]
`
	}
	return files
}

// writeFiles writes files (name → content) under dir.
func writeFiles(b *testing.B, dir string, files map[string]string) {
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
