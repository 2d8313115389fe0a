package gitlabpoll

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// toolUser is the tool's own account in these tests.
const toolUser = "fullsend-bot"

// needsAgent is an entity-source harness "agent" matching, with no
// event, the entities labelled needs-agent (retry max 2, backoff 1m);
// it runs nothing for events.
type needsAgent struct{}

func (needsAgent) Decide(*event.Event, *entity.Resolution) poll.Decision {
	return poll.Decision{Verdict: poll.VerdictNoMatch}
}

func (needsAgent) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }
func (needsAgent) Refund([]plan.Run)                                    {}

func (needsAgent) DecidesEntities(system string) bool { return system == entity.SystemGitLab }

func (needsAgent) DecideScheduled(res entity.Resolution) poll.ScheduledDecision {
	if !slices.Contains(res.Entity.State.Labels, "needs-agent") {
		return poll.ScheduledDecision{Verdict: poll.VerdictNoMatch}
	}
	return poll.ScheduledDecision{Verdict: poll.VerdictRun, Matched: []poll.ScheduledMatch{{Harness: "agent", Role: "agent",
		Seen: res.Entity, Retry: reconcile.Policy{Max: 2, Backoff: time.Minute}}}}
}

// schedFixture is a fixture with the gitlab-pipeline output and the
// tool's own account.
type schedFixture struct {
	*fixture
	out  output.Driver
	tool gitlabsim.User
}

func newSchedFixture(t *testing.T) *schedFixture {
	f := newFixture(t)
	out, err := gitlabpipeline.New(gitlabpipeline.Options{APIURL: f.base, Token: f.sim.Token(), Project: project, Ref: "main",
		Transport: f.tr})
	must(t, err)
	return &schedFixture{fixture: f, out: out, tool: f.sim.AddUser(toolUser, true)}
}

func (f *schedFixture) driver(t *testing.T) *Driver {
	d := NewDriver(f.poller(t), nil)
	d.AddOwnAccounts(toolUser)
	return d
}

// scheduled runs one cycle of d; allow: scheduled discovery is allowed.
func (f *schedFixture) scheduled(t *testing.T, d *Driver, log *bytes.Buffer, allow bool) poll.CycleStats {
	t.Helper()
	sched := &poll.Schedule{Decider: needsAgent{}, Policy: config.ScheduledAllow, Invoker: "gitlab-poll:test", Forge: "gitlab"}
	if !allow {
		sched.Policy = ""
	}
	res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Core: needsAgent{}, Output: f.out, JitterMax: -1, Now: f.clk.Now,
		Validate: (*event.Event).Validate, N: 1000, Log: slog.New(slog.NewTextHandler(log, nil)), Schedule: sched})
	if err != nil && !strings.Contains(err.Error(), "quarantined") {
		t.Fatalf("cycle: %v\n%s", err, log)
	}
	return res.Stats
}

// agentPipelines is the pipelines of the harness "agent", oldest first.
func (f *schedFixture) agentPipelines() []gitlabsim.Pipeline {
	var out []gitlabsim.Pipeline
	for _, p := range f.sim.Pipelines(project) {
		if strings.HasPrefix(p.Variables[glapi.VarIdempotencyKey], "agent:") {
			out = append(out, p)
		}
	}
	return out
}

// end finishes pipeline p's job with status.
func (f *schedFixture) end(t *testing.T, p gitlabsim.Pipeline, status string) {
	t.Helper()
	must(t, f.sim.FinishJob(p.JobID, status))
}

// A label with no note dispatches one scheduled pipeline, none more while
// it runs; a failed one is retried after the backoff (doubled), at most
// max times, then the version is given up on (logged and counted once);
// a person's note is a new version, due again.
func TestScheduledPipelineRetriedThenGivenUp(t *testing.T) {
	f := newSchedFixture(t)
	is, _, err := f.sim.CreateIssue(project, f.alice.ID, "Importer drops rows", "", nil)
	must(t, err)
	f.clk.Advance(time.Minute)
	_, err = f.sim.ChangeLabels(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, []string{"needs-agent"}, nil)
	must(t, err)
	f.clk.Advance(time.Minute)
	d := f.driver(t)
	var log bytes.Buffer
	f.scheduled(t, d, &log, true)
	ps := f.agentPipelines()
	if len(ps) != 1 {
		t.Fatalf("agent pipelines = %d, want 1\n%s", len(ps), log.String())
	}
	if key := ps[0].Variables[glapi.VarIdempotencyKey]; !strings.Contains(key, "agent:acme/platform:gitlab:work_item:1@v1:") {
		t.Fatalf("key %q is not scope key @ entity version", key)
	}
	f.clk.Advance(2 * time.Minute) // past the backoff: only the running pipeline holds it back
	f.scheduled(t, d, &log, true)
	if got := len(f.agentPipelines()); got != 1 {
		t.Fatalf("a second pipeline while the first runs: %d", got)
	}
	f.end(t, ps[0], gitlabsim.StatusFailed)
	f.scheduled(t, d, &log, true)
	if got := len(f.agentPipelines()); got != 1 {
		t.Fatalf("retried before the backoff: %d pipelines", got)
	}
	for i, wait := range []time.Duration{61 * time.Second, 121 * time.Second} {
		f.clk.Advance(wait)
		f.scheduled(t, d, &log, true)
		ps := f.agentPipelines()
		if len(ps) != i+2 {
			t.Fatalf("retry %d: %d pipelines, want %d\n%s", i+1, len(ps), i+2, log.String())
		}
		if last := ps[len(ps)-1]; last.Status == gitlabsim.StatusCanceled {
			t.Fatalf("retry %d was settled away: an earlier attempt carries its key", i+1)
		}
		f.end(t, ps[len(ps)-1], gitlabsim.StatusFailed)
	}
	log.Reset()
	f.clk.Advance(10 * time.Minute)
	st := f.scheduled(t, d, &log, true)
	if got := len(f.agentPipelines()); got != 3 || st.ScheduledQuarantined != 1 || !strings.Contains(log.String(), "entity version quarantined") {
		t.Fatalf("pipelines %d, quarantined %d (want 3 pipelines, given up once)\n%s", got, st.ScheduledQuarantined, log.String())
	}
	f.clk.Advance(10 * time.Minute)
	if st := f.scheduled(t, d, &log, true); st.ScheduledQuarantined != 0 || len(f.agentPipelines()) != 3 {
		t.Fatalf("given up again (%d) or run again (%d)", st.ScheduledQuarantined, len(f.agentPipelines()))
	}
	_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, "still broken")
	must(t, err)
	f.clk.Advance(time.Minute)
	f.scheduled(t, d, &log, true)
	if got := len(f.agentPipelines()); got != 4 {
		t.Fatalf("a person's note did not make the entity due again: %d pipelines\n%s", got, log.String())
	}
}

// A pipeline whose status is success is the receipt: no further run, not
// even after the tool's own note; a person's note is a new version. A
// poller that starts afresh (its window not holding the pipeline) finds
// the receipt too. With the policy absent nothing is scheduled.
func TestScheduledSuccessIsTheReceipt(t *testing.T) {
	f := newSchedFixture(t)
	is, _, err := f.sim.CreateIssue(project, f.alice.ID, "Importer drops rows", "", []string{"needs-agent"})
	must(t, err)
	f.clk.Advance(time.Minute)
	var log bytes.Buffer
	if f.scheduled(t, f.driver(t), &log, false); len(f.agentPipelines()) != 0 {
		t.Fatalf("policy absent: %d pipelines, want none", len(f.agentPipelines()))
	}
	d := f.driver(t)
	f.scheduled(t, d, &log, true)
	ps := f.agentPipelines()
	if len(ps) != 1 {
		t.Fatalf("agent pipelines = %d, want 1\n%s", len(ps), log.String())
	}
	_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.tool.ID, "done: see the attached fix")
	must(t, err)
	f.end(t, ps[0], gitlabsim.StatusSuccess)
	f.clk.Advance(time.Minute)
	f.scheduled(t, d, &log, true)
	if got := len(f.agentPipelines()); got != 1 {
		t.Fatalf("run again after success and the tool's own note: %d\n%s", got, log.String())
	}
	f.clk.Advance(5 * time.Hour) // the pipeline is older than a new poller's window
	fresh := f.driver(t)
	before := f.sim.CallsTotal()
	for range 2 { // the sweep's issues page comes round on the second cycle
		f.scheduled(t, fresh, &log, true)
	}
	if got := len(f.agentPipelines()); got != 1 {
		t.Fatalf("a success older than the window was forgotten: %d pipelines\n%s", got, log.String())
	}
	t.Logf("a fresh poller's first two scheduled cycles: %d calls", f.sim.CallsTotal()-before)
	_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, "it is back")
	must(t, err)
	f.clk.Advance(time.Minute)
	f.scheduled(t, fresh, &log, true)
	if got := len(f.agentPipelines()); got != 2 {
		t.Fatalf("a person's note did not make the entity due again: %d pipelines\n%s", got, log.String())
	}
}

// At 1 000 opened issues, once the sweep has gone round, an idle cycle
// with scheduled discovery costs one call more than one without (the
// sweep page).
func TestScheduledIdleCost(t *testing.T) {
	f := newSchedFixture(t)
	const items = 1000
	for i := range items {
		_, _, err := f.sim.CreateIssue(project, f.alice.ID, "issue "+strconv.Itoa(i), "", nil)
		must(t, err)
	}
	f.clk.Advance(5 * time.Hour) // every issue older than the window
	var log bytes.Buffer
	plain := NewDriver(f.poller(t), nil)
	f.scheduled(t, plain, &log, false)
	before := f.sim.CallsTotal()
	f.scheduled(t, plain, &log, false)
	idle := f.sim.CallsTotal() - before
	d := f.driver(t)
	for range items/sweepPerPage + 2 { // the sweep goes round once (issues, then merge requests)
		f.scheduled(t, d, &log, true)
	}
	before = f.sim.CallsTotal()
	st := f.scheduled(t, d, &log, true)
	got := f.sim.CallsTotal() - before
	if got > idle+1 || st.ScheduledEvaluated < sweepPerPage {
		t.Fatalf("idle scheduled cycle: %d calls (without: %d), %d evaluated", got, idle, st.ScheduledEvaluated)
	}
	t.Logf("idle cycle at %d items: %d calls without scheduled discovery, %d with", items, idle, got)
}

// oneShotScheduled is what one `fullsend poll` process does with
// scheduled discovery allowed and the state in dir; it returns the
// cycle's stats and the GitLab calls it cost.
func (f *schedFixture) oneShotScheduled(t *testing.T, dir string, log *bytes.Buffer) (poll.CycleStats, int) {
	t.Helper()
	before := f.sim.CallsTotal()
	sl := slog.New(slog.NewTextHandler(log, nil))
	id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}}
	in, err := build(id, project, project, f.sim.Token(), f.tr, poll.InputEnv{State: pollstate.Open(dir, sl, f.clk.Now), Now: f.clk.Now, Log: sl})
	must(t, err)
	if _, err := in.Account(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := f.scheduled(t, in.Driver, log, true)
	in.SaveState()
	return st, f.sim.CallsTotal() - before
}

// One-shot processes sharing a state directory retry a failed scheduled
// pipeline, give its version up once, and then cost the idle figure:
// the window's two listings and the sweep page.
func TestOneShotScheduled(t *testing.T) {
	f := newSchedFixture(t)
	f.sim.SetTokenUser(f.tool.ID)
	_, _, err := f.sim.CreateIssue(project, f.alice.ID, "Importer drops rows", "", []string{"needs-agent"})
	must(t, err)
	f.clk.Advance(time.Minute)
	dir := t.TempDir()
	var log bytes.Buffer
	for i := range 3 {
		f.oneShotScheduled(t, dir, &log)
		ps := f.agentPipelines()
		if len(ps) != i+1 {
			t.Fatalf("process %d: %d pipelines, want %d\n%s", i+1, len(ps), i+1, log.String())
		}
		f.end(t, ps[i], gitlabsim.StatusFailed)
		f.clk.Advance(5 * time.Minute)
	}
	if st, _ := f.oneShotScheduled(t, dir, &log); st.ScheduledQuarantined != 1 {
		t.Fatalf("given up %d times, want 1\n%s", st.ScheduledQuarantined, log.String())
	}
	f.clk.Advance(5 * time.Minute)
	f.oneShotScheduled(t, dir, &log)
	st, calls := f.oneShotScheduled(t, dir, &log)
	if st.ScheduledQuarantined != 0 || len(f.agentPipelines()) != 3 {
		t.Fatalf("a new process gave up again (%d) or ran again (%d pipelines)", st.ScheduledQuarantined, len(f.agentPipelines()))
	}
	if calls > 3 {
		t.Fatalf("idle one-shot scheduled cycle: %d calls, want at most 3", calls)
	}
	t.Logf("idle one-shot scheduled cycle: %d calls", calls)
}
