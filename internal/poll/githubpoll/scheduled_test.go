package githubpoll

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
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// toolLogin is the tool's own account in these tests.
const toolLogin = "fullsend-bot"

// needsAgent is an entity-source harness "agent" matching, with no
// event, the entities labelled needs-agent (retry max 2, backoff 1m);
// it runs nothing for events.
type needsAgent struct{}

func (needsAgent) Decide(*event.Event, *entity.Resolution) poll.Decision {
	return poll.Decision{Verdict: poll.VerdictNoMatch}
}

func (needsAgent) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }
func (needsAgent) Refund([]plan.Run)                                    {}

func (needsAgent) DecidesEntities(system string) bool { return system == entity.SystemGitHub }

func (needsAgent) DecideScheduled(res entity.Resolution) poll.ScheduledDecision {
	if !slices.Contains(res.Entity.State.Labels, "needs-agent") {
		return poll.ScheduledDecision{Verdict: poll.VerdictNoMatch}
	}
	return poll.ScheduledDecision{Verdict: poll.VerdictRun, Matched: []poll.ScheduledMatch{{Harness: "agent", Role: "agent",
		Seen: res.Entity, Retry: reconcile.Policy{Max: 2, Backoff: time.Minute}}}}
}

// scheduled runs one cycle of d with scheduled discovery allowed; the
// cycle log goes to log.
func (f *fixture) scheduled(t *testing.T, d *Driver, log *bytes.Buffer) poll.CycleStats {
	t.Helper()
	res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: d, Core: needsAgent{}, Output: f.out, JitterMax: -1, Now: f.clk.Now,
		Validate: (*event.Event).Validate, N: 1000, Log: slog.New(slog.NewTextHandler(log, nil)),
		Schedule: &poll.Schedule{Decider: needsAgent{}, Policy: config.ScheduledAllow, Invoker: "github-poll:test", Forge: "github"}})
	if err != nil && !strings.Contains(err.Error(), "quarantined") {
		t.Fatalf("cycle: %v\n%s", err, log)
	}
	return res.Stats
}

// personCommentIsDue has alice comment on issue n and checks that the
// next scheduled cycle starts a run for the new version: want agent runs
// in all.
func (f *fixture) personCommentIsDue(t *testing.T, d *Driver, log *bytes.Buffer, n int, text string, want int) {
	t.Helper()
	_, _, err := f.sim.AddComment(repo, n, "alice", text)
	must(t, err)
	f.clk.Advance(time.Minute)
	f.scheduled(t, d, log)
	if got := len(f.agentRuns()); got != want {
		t.Fatalf("a person's comment did not make the entity due again: %d runs, want %d", got, want)
	}
}

// agentRuns is the runs of the harness "agent".
func (f *fixture) agentRuns() []githubsim.Run {
	var out []githubsim.Run
	for _, r := range f.sim.Runs() {
		if strings.Contains(githubsim.DisplayTitle(r.Inputs), " agent ") {
			out = append(out, r)
		}
	}
	return out
}

func (f *fixture) scheduledDriver(t *testing.T) *Driver {
	d := NewDriver(f.poller(t), nil)
	d.AddOwnAccounts(toolLogin)
	return d
}

// A label with no comment dispatches one scheduled run, none more while
// it is queued; a run that concluded failure is retried after the
// backoff (doubled), at most max times, then the version is given up on
// (logged once); a person's new comment makes a new version, due again.
func TestScheduledRunRetriedThenGivenUp(t *testing.T) {
	f := newFixture(t)
	n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "Importer drops rows", Author: "alice"})
	must(t, err)
	f.clk.Advance(time.Minute)
	_, err = f.sim.SetLabel(repo, n, "mara", "needs-agent", true)
	must(t, err)
	f.clk.Advance(time.Minute)
	d := f.scheduledDriver(t)
	var log bytes.Buffer
	f.scheduled(t, d, &log)
	runs := f.agentRuns()
	if len(runs) != 1 {
		t.Fatalf("agent runs = %d, want 1\n%s", len(runs), log.String())
	}
	title := githubsim.DisplayTitle(runs[0].Inputs)
	if !strings.Contains(title, "agent:acme/platform:github:work_item:1@v1:") {
		t.Fatalf("title %q does not carry scope key @ entity version", title)
	}
	f.clk.Advance(2 * time.Minute) // past the backoff: only the queued run holds it back
	f.scheduled(t, d, &log)
	if got := len(f.agentRuns()); got != 1 {
		t.Fatalf("a second run while the first is queued: %d", got)
	}
	must(t, f.sim.CompleteRun(runs[0].ID, githubsim.ConclusionFailure))
	f.scheduled(t, d, &log)
	if got := len(f.agentRuns()); got != 1 {
		t.Fatalf("retried before the backoff: %d runs", got)
	}
	for i, wait := range []time.Duration{61 * time.Second, 121 * time.Second} {
		f.clk.Advance(wait)
		f.scheduled(t, d, &log)
		rs := f.agentRuns()
		if len(rs) != i+2 {
			t.Fatalf("retry %d: %d runs, want %d\n%s", i+1, len(rs), i+2, log.String())
		}
		if last := rs[len(rs)-1]; last.Status == githubsim.StatusCompleted {
			t.Fatalf("retry %d was settled away (%s): an earlier attempt carries its key", i+1, last.Conclusion)
		}
		must(t, f.sim.CompleteRun(rs[len(rs)-1].ID, "timed_out"))
	}
	log.Reset()
	f.clk.Advance(10 * time.Minute)
	st := f.scheduled(t, d, &log)
	if got := len(f.agentRuns()); got != 3 || st.ScheduledQuarantined != 1 || !strings.Contains(log.String(), "entity version quarantined") ||
		!strings.Contains(log.String(), "3 runs of version") {
		t.Fatalf("runs %d, quarantined %d (want 3 runs, given up once)\n%s", got, st.ScheduledQuarantined, log.String())
	}
	f.clk.Advance(10 * time.Minute)
	if st := f.scheduled(t, d, &log); st.ScheduledQuarantined != 0 || len(f.agentRuns()) != 3 {
		t.Fatalf("given up again (%d) or run again (%d)", st.ScheduledQuarantined, len(f.agentRuns()))
	}
	// A person's comment: a new version, due again.
	f.personCommentIsDue(t, d, &log, n, "still broken", 4)
}

// A run that concluded success is the receipt: no further run, not even
// after the tool's own comment; a person's comment is a new version.
// A poller that starts afresh (its window not holding the run) finds
// the receipt too.
func TestScheduledSuccessIsTheReceipt(t *testing.T) {
	f := newFixture(t)
	n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "Importer drops rows", Author: "alice", Labels: []string{"needs-agent"}})
	must(t, err)
	f.clk.Advance(time.Minute)
	d := f.scheduledDriver(t)
	var log bytes.Buffer
	f.scheduled(t, d, &log)
	runs := f.agentRuns()
	if len(runs) != 1 {
		t.Fatalf("agent runs = %d, want 1\n%s", len(runs), log.String())
	}
	_, _, err = f.sim.AddComment(repo, n, toolLogin, "done: see the attached fix")
	must(t, err)
	must(t, f.sim.CompleteRun(runs[0].ID, githubsim.ConclusionSuccess))
	f.clk.Advance(time.Minute)
	f.scheduled(t, d, &log)
	if got := len(f.agentRuns()); got != 1 {
		t.Fatalf("run again after success and the tool's own comment: %d\n%s", got, log.String())
	}
	// Five hours later the run is older than a new poller's window.
	f.clk.Advance(5 * time.Hour)
	fresh := f.scheduledDriver(t)
	before := f.sim.Requests()
	f.scheduled(t, fresh, &log)
	if got := len(f.agentRuns()); got != 1 {
		t.Fatalf("a success older than the window was forgotten: %d runs\n%s", got, log.String())
	}
	t.Logf("a fresh poller's first scheduled cycle: %d requests", f.sim.Requests()-before)
	f.personCommentIsDue(t, fresh, &log, n, "it is back", 2)
}

// At 1 000 open issues, once the sweep has gone round, an idle cycle with
// scheduled discovery costs one request more than one without (the sweep
// page's 304) and no rate-limit point.
func TestScheduledIdleCost(t *testing.T) {
	f := newFixture(t)
	const items = 1000
	for i := range items {
		_, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "issue " + strconv.Itoa(i), Author: "alice"})
		must(t, err)
	}
	f.clk.Advance(5 * time.Hour) // every issue older than the window
	plain := NewDriver(f.poller(t), nil)
	f.cycle(t, plain)
	before, points := f.sim.Requests(), f.sim.RatePointsUsed()
	f.cycle(t, plain)
	idle := f.sim.Requests() - before
	if f.sim.RatePointsUsed() != points {
		t.Fatalf("an idle cycle without scheduled discovery used rate-limit points")
	}
	d := f.scheduledDriver(t)
	var log bytes.Buffer
	for range items/sweepPerPage + 1 { // the sweep goes round once
		f.scheduled(t, d, &log)
	}
	before, points = f.sim.Requests(), f.sim.RatePointsUsed()
	st := f.scheduled(t, d, &log)
	got := f.sim.Requests() - before
	if got > idle+1 || f.sim.RatePointsUsed() != points || st.ScheduledEvaluated < sweepPerPage {
		t.Fatalf("idle scheduled cycle: %d requests (without: %d), %d rate-limit points, %d evaluated",
			got, idle, f.sim.RatePointsUsed()-points, st.ScheduledEvaluated)
	}
	t.Logf("idle cycle at %d items: %d requests without scheduled discovery, %d with, 0 rate-limit points", items, idle, got)
}

// oneShotScheduled is oneShot with scheduled discovery allowed.
func (f *fixture) oneShotScheduled(t *testing.T, dir string, log *bytes.Buffer) (poll.CycleStats, cost) {
	t.Helper()
	before := f.counters()
	sl := slog.New(slog.NewTextHandler(log, nil))
	id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}}
	in, err := build(id, repo, "", token, f.tr, poll.InputEnv{State: pollstate.Open(dir, sl, f.clk.Now), Now: f.clk.Now, Log: sl})
	must(t, err)
	if _, err := in.Account(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := f.scheduled(t, in.Driver, log)
	in.SaveState()
	return st, f.counters().since(before)
}

// One-shot processes sharing a state directory retry a failed scheduled
// run, give its version up once, and then cost the idle figure: the
// three 304s and the sweep page's.
func TestOneShotScheduled(t *testing.T) {
	f := newFixture(t)
	_, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "Importer drops rows", Author: "alice", Labels: []string{"needs-agent"}})
	must(t, err)
	f.clk.Advance(time.Minute)
	dir := t.TempDir()
	var log bytes.Buffer
	for i := range 3 {
		f.oneShotScheduled(t, dir, &log)
		rs := f.agentRuns()
		if len(rs) != i+1 {
			t.Fatalf("process %d: %d runs, want %d\n%s", i+1, len(rs), i+1, log.String())
		}
		must(t, f.sim.CompleteRun(rs[i].ID, githubsim.ConclusionFailure))
		f.clk.Advance(5 * time.Minute)
	}
	if st, _ := f.oneShotScheduled(t, dir, &log); st.ScheduledQuarantined != 1 {
		t.Fatalf("given up %d times, want 1\n%s", st.ScheduledQuarantined, log.String())
	}
	f.clk.Advance(5 * time.Minute)
	f.oneShotScheduled(t, dir, &log)
	st, c := f.oneShotScheduled(t, dir, &log)
	if st.ScheduledQuarantined != 0 || len(f.agentRuns()) != 3 {
		t.Fatalf("a new process gave up again (%d) or ran again (%d runs)", st.ScheduledQuarantined, len(f.agentRuns()))
	}
	if c.requests > 4 || c.points != 0 {
		t.Fatalf("idle one-shot scheduled cycle: %+v, want at most 4 requests and no point", c)
	}
}
