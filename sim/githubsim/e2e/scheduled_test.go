package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/quarantine"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// toolAccount is the Jira emulator's own account (the API token's).
const toolAccount = "557058:fullsend-bot"

// scheduledWorld is the e2e world with scheduled discovery: policy
// (authorization.scheduled_discovery; "" leaves it out), an entity-source
// harness "triage" over needs-triage labels (retry max 1, backoff 1s,
// its agent exiting with the code in the file exitCode), and an
// event-only harness "anything" (trigger: anything) whose trigger
// matches every event when it is "true".
func scheduledWorld(t *testing.T, policy, anything string) (*world, string) {
	t.Helper()
	w := newWorld(t)
	w.clock.lag.Store(int64(time.Minute)) // room to move Jira's clock forward without sleeping
	cfg, err := os.ReadFile(filepath.Join(w.dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	auth := ""
	if policy != "" {
		auth = "authorization:\n  scheduled_discovery: " + policy + "\n"
	}
	text := strings.Replace(string(cfg), "agents:\n  - name: triage\n    source: triage.yaml\n",
		auth+"agents:\n  - name: triage\n    source: triage.yaml\n  - name: anything\n    source: anything.yaml\n", 1)
	w.write(t, "config.yaml", text)
	exitCode := filepath.Join(w.dir, "exit-code")
	w.write(t, "exit-code", "1")
	w.write(t, "triage.yaml", fmt.Sprintf(`role: triage
entity:
  sources: [jira]
  retry: {max: 1, backoff: 1s}
trigger: 'event == null && "needs-triage" in entity.state.labels'
run:
  command: ["/bin/sh", "-c", "exit $(cat %s)"]
  isolation: none
`, exitCode))
	w.write(t, "anything.yaml", "role: anything\ntrigger: '"+anything+"'\n")
	return w, exitCode
}

// advance moves Jira's clock forward by d (it runs behind the real time).
func (w *world) advance(t *testing.T, d time.Duration) {
	t.Helper()
	if w.clock.lag.Add(-int64(d)) < 0 {
		t.Fatal("the Jira clock cannot run ahead of the real time")
	}
}

// play runs the dispatched run r as its workflow would: `fullsend run`
// with r's inputs, as GitHub run r.ID.
func (w *world) play(t *testing.T, r githubsim.Run) int {
	t.Helper()
	ev := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(ev, []byte(r.Inputs[plan.InNormalizedEvent]), 0o600); err != nil {
		t.Fatal(err)
	}
	w.env["GITHUB_RUN_ID"] = fmt.Sprint(r.ID)
	defer delete(w.env, "GITHUB_RUN_ID")
	code, _, logs := w.run(t, "run", "--harness", r.Inputs[plan.InAgent], "--event-file", ev, "--poll-lock", r.Inputs[plan.InPollLock])
	t.Logf("run %d exit %d", r.ID, code)
	conclusion := githubsim.ConclusionSuccess
	if code != 0 {
		conclusion = githubsim.ConclusionFailure
	}
	if err := w.gh.CompleteRun(r.ID, conclusion); err != nil {
		t.Fatal(err)
	}
	if code != 0 && !strings.Contains(logs, "agent finished") {
		t.Fatalf("run %d did not start its agent (exit %d):\n%s", r.ID, code, logs)
	}
	return code
}

func (w *world) poll(t *testing.T) string {
	t.Helper()
	code, _, logs := w.run(t, "--log-level", "debug", "poll")
	if code != 0 && code != 1 {
		t.Fatalf("poll exit %d:\n%s", code, logs)
	}
	return logs
}

func runsOf(w *world, harness string) []githubsim.Run {
	var out []githubsim.Run
	for _, r := range w.gh.Runs() {
		if r.Inputs[plan.InAgent] == harness {
			out = append(out, r)
		}
	}
	return out
}

// Proofs 1 and 2: a label with no comment dispatches one scheduled run
// in the entity's scope, none more while it is queued; a run that fails
// is retried after the backoff, at most max times, then the version is
// quarantined with the reason (visible in fullsend status). The
// processes keep a state directory: the retry, dispatched by another
// process, names the same invoker (the poller id the state restored).
func TestScheduledRunRetriedThenQuarantined(t *testing.T) {
	w, _ := scheduledWorld(t, "allow", "false")
	w.env["XDG_CACHE_HOME"] = t.TempDir()
	key := w.jira.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "Importer drops rows", Reporter: alice})
	w.jira.AddLabel(key, "needs-triage", alice)
	logs := w.poll(t)
	runs := runsOf(w, "triage")
	if len(runs) != 1 {
		t.Fatalf("triage runs = %d, want 1\n%s", len(runs), logs)
	}
	r := runs[0]
	var wi plan.WorkItem
	if err := json.Unmarshal([]byte(r.Inputs[plan.InWorkItem]), &wi); err != nil {
		t.Fatal(err)
	}
	scope := r.Inputs[plan.InSerializationKey]
	if !strings.HasPrefix(scope, "triage:acme/platform:jira:work_item:") || !strings.HasPrefix(wi.IdempotencyKey, scope+"@v1:") ||
		wi.Attribution == nil || wi.Attribution.Invoker == "" || wi.Attribution.Policy.ScheduledDiscovery != "allow" ||
		!strings.HasPrefix(wi.Attribution.Revision, "sha256:") {
		t.Fatalf("scope %s, work item %+v", scope, wi)
	}
	// Queued: the lock holds the item; no second run.
	w.poll(t)
	if n := len(runsOf(w, "triage")); n != 1 {
		t.Fatalf("a second run while the first is queued: %d", n)
	}
	// The run fails: no receipt; after the backoff the entity is retried once.
	if code := w.play(t, r); code != 1 {
		t.Fatalf("run exit %d, want the agent's 1", code)
	}
	w.advance(t, 5*time.Second)
	logs = w.poll(t)
	if n := len(runsOf(w, "triage")); n != 2 {
		t.Fatalf("no retry after the backoff: %d runs\n%s", n, logs)
	}
	var retry plan.WorkItem
	if err := json.Unmarshal([]byte(runsOf(w, "triage")[1].Inputs[plan.InWorkItem]), &retry); err != nil {
		t.Fatal(err)
	}
	if retry.Attribution == nil || retry.Attribution.Invoker != wi.Attribution.Invoker {
		t.Fatalf("the retry's attribution %+v, want the invoker %s of the first run", retry.Attribution, wi.Attribution.Invoker)
	}
	w.play(t, runsOf(w, "triage")[1])
	w.advance(t, 10*time.Second)
	logs = w.poll(t)
	if n := len(runsOf(w, "triage")); n != 2 {
		t.Fatalf("retried past max: %d runs", n)
	}
	qraw, ok := w.jira.Property(key, quarantine.Key("acme/platform"))
	if !ok || !strings.Contains(string(qraw), "2 runs of version") || !strings.Contains(string(qraw), `"harness":"triage"`) {
		t.Fatalf("quarantine record %s\n%s", qraw, logs)
	}
	_, out, _ := w.run(t, "status")
	if !strings.Contains(out, "triage") || !strings.Contains(out, key) {
		t.Errorf("status does not show the quarantine:\n%s", out)
	}
	w.advance(t, 10*time.Second)
	w.poll(t)
	if n := len(runsOf(w, "triage")); n != 2 {
		t.Fatalf("a quarantined version ran again: %d runs", n)
	}
}

// Proof 3: a run that succeeds, its agent having commented as the tool's
// account, writes its receipt: no further run; a person's comment (a new
// version) makes the entity due again.
func TestScheduledSuccessWritesReceipt(t *testing.T) {
	w, _ := scheduledWorld(t, "allow", "false")
	w.write(t, "exit-code", "0")
	key := w.jira.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "Needs a look", Reporter: alice, Labels: []string{"needs-triage"}})
	w.poll(t)
	runs := runsOf(w, "triage")
	if len(runs) != 1 {
		t.Fatalf("triage runs = %d, want 1", len(runs))
	}
	w.advance(t, time.Second)
	w.jira.AddComment(key, toolAccount, "Triaged: looks like the importer.")
	if code := w.play(t, runs[0]); code != 0 {
		t.Fatalf("run exit %d", code)
	}
	raw, ok := w.jira.Property(key, receipts.Key("acme/platform"))
	rs, err := receipts.Parse(raw)
	if !ok || err != nil || rs["triage"].Success == nil || rs["triage"].Success.Run != fmt.Sprintf("gha-dispatch/%d", runs[0].ID) {
		t.Fatalf("receipt %s (%v)", raw, err)
	}
	w.advance(t, 5*time.Second)
	logs := w.poll(t)
	if n := len(runsOf(w, "triage")); n != 1 {
		t.Fatalf("the agent's own comment made the entity due again: %d runs\n%s", n, logs)
	}
	w.advance(t, time.Second)
	w.jira.AddComment(key, alice, "Still failing on 2.3.")
	w.advance(t, time.Second)
	w.poll(t)
	if n := len(runsOf(w, "triage")); n != 2 {
		t.Fatalf("a person's comment did not make the entity due: %d runs", n)
	}
}

// Proof 4: without the policy, no scheduled run at all; an event-only
// harness is never evaluated with event == null (an issue without a new
// change starts nothing).
func TestScheduledDeniedWithoutPolicy(t *testing.T) {
	for _, policy := range []string{"", "deny"} {
		t.Run("policy "+policy, func(t *testing.T) {
			w, _ := scheduledWorld(t, policy, "true")
			w.jira.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "x", Reporter: alice, Labels: []string{"needs-triage"}})
			w.poll(t)
			if n := len(runsOf(w, "triage")); n != 0 {
				t.Fatalf("scheduled runs without the policy: %d", n)
			}
		})
	}
	w, _ := scheduledWorld(t, "allow", "true")
	key := w.jira.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "x", Reporter: alice})
	_, checkProp := polllock.Keys("acme/platform")
	seeded, _ := json.Marshal(lastcheck.LastCheck{TS: w.clock.now().UTC()})
	w.jira.SetPropertyDirect(key, checkProp, seeded) // handled: no change to decide
	w.advance(t, 5*time.Second)
	for range 2 {
		if logs := w.poll(t); !strings.Contains(logs, `"scheduled_evaluated":1`) {
			t.Fatalf("the sweep did not evaluate the entity:\n%s", logs)
		}
	}
	if n := len(w.gh.Runs()); n != 0 {
		t.Fatalf("a harness ran without an event: %d runs", n)
	}
}

// Proof 5: a scheduled run that never starts (queued until its lock went
// stale) is dispatched again once the lock is stale, once; the old run,
// starting late, finds its lock taken over and does not start its agent.
func TestScheduledRunThatNeverStartedIsDispatchedAgainOnce(t *testing.T) {
	w, _ := scheduledWorld(t, "allow", "false")
	cfg, _ := os.ReadFile(filepath.Join(w.dir, "config.yaml"))
	w.write(t, "config.yaml", strings.Replace(string(cfg), "        jitter_max: 2ms\n",
		"        jitter_max: 2ms\n        stale_threshold: 20s\n        refresh_interval: 5s\n        pending_ttl: 5s\n", 1))
	w.write(t, "exit-code", "0")
	key := w.jira.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "Queued forever", Reporter: alice, Labels: []string{"needs-triage"}})
	w.poll(t)
	if n := len(runsOf(w, "triage")); n != 1 {
		t.Fatalf("triage runs = %d, want 1", n)
	}
	w.advance(t, 10*time.Second) // past pending_ttl, not stale: the run may still claim it
	w.poll(t)
	if n := len(runsOf(w, "triage")); n != 1 {
		t.Fatalf("dispatched again while the first run could still start: %d", n)
	}
	w.advance(t, 15*time.Second) // stale
	logs := w.poll(t)
	runs := runsOf(w, "triage")
	if len(runs) != 2 {
		t.Fatalf("triage runs = %d, want 2 (the never-started one dispatched again)\n%s", len(runs), logs)
	}
	w.poll(t)
	if n := len(runsOf(w, "triage")); n != 2 {
		t.Fatalf("dispatched a third time: %d", n)
	}
	if code, _, _ := w.run(t, "run", "--harness", "triage", "--event-file", writeTemp(t, runs[0].Inputs[plan.InNormalizedEvent]),
		"--poll-lock", runs[0].Inputs[plan.InPollLock]); code != 3 {
		t.Fatalf("the old run exit %d, want 3 (its lock was taken over)", code)
	}
	if code := w.play(t, runs[1]); code != 0 {
		t.Fatalf("the new run exit %d", code)
	}
	raw, _ := w.jira.Property(key, receipts.Key("acme/platform"))
	if rs, err := receipts.Parse(raw); err != nil || rs["triage"].Success == nil || rs["triage"].Success.Attempts != 2 {
		t.Fatalf("receipt %s (%v)", raw, err)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
