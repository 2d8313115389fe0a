package githubpoll

import (
	"context"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestUndisplace: a change whose run GitHub cancelled when an older
// change's run was queued after it (its dispatcher died before re-running
// it) is not handled: the scope's checkpoint moves below it, so the next
// cycle dispatches it again; a change cancelled otherwise stays handled.
func TestUndisplace(t *testing.T) {
	const tail = "acme/platform:github:work_item:7"
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	older, newer := changepos.Pos{At: t0, ID: 5}, changepos.Pos{At: t0, ID: 9}
	run := func(id int64, p changepos.Pos, created int, status, conclusion string) runInfo {
		at := t0.Add(time.Duration(created) * time.Second)
		return runInfo{id: id, suffix: changepos.ID(p), status: status, conclusion: conclusion, created: at, updated: at}
	}
	cases := []struct {
		name string
		runs []runInfo
		want changepos.Pos
	}{
		{"displaced by an older change's run queued after it",
			[]runInfo{run(1, newer, 1, statusCompleted, "cancelled"), run(2, older, 2, "pending", "")}, changepos.Pos{At: t0, ID: 8}},
		{"cancelled by a person before the older run", []runInfo{run(2, older, 1, statusCompleted, conclusionSuccess),
			run(1, newer, 2, statusCompleted, "cancelled")}, newer},
		{"re-run: live", []runInfo{run(1, newer, 1, "queued", ""), run(2, older, 2, statusCompleted, "cancelled")}, newer},
	}
	for _, tc := range cases {
		newestAt := map[string]changepos.Pos{tail: newer}
		undisplace(newestAt, map[string]map[string][]runInfo{tail: {"triage": tc.runs}})
		if newestAt[tail].Compare(tc.want) != 0 {
			t.Errorf("%s: checkpoint %v, want %v", tc.name, newestAt[tail], tc.want)
		}
	}
}

// TestDisplacedAfterHandled: the webhook path dispatched both comments of
// an issue (the newer one's run waiting behind the older one's, active),
// and a poller took the issue as handled. Then a dispatcher of the older
// comment (one that read the issue before the newer comment) queues its
// run and dies before its settle: GitHub's concurrency group cancels the
// newer comment's pending run. The issue's updated_at does not move, yet
// the poller's next cycle dispatches the newer comment again: a waiting
// run of its last run list could be dropped, so it reads the list
// (conditionally) while one waits, and nothing more once none does.
func TestDisplacedAfterHandled(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	must(t, f.sim.AddWorkflow(repo, githubsim.Workflow{File: ghadispatch.DefaultWorkflow, Inputs: plan.Names,
		Concurrency: func(in map[string]string) string { return ghactions.CallerPrefix + in[plan.InSerializationKey] }}))
	n := f.openIssue(t, false)
	must(t, f.webhook(ctx, f.comment(t, n, "/fs-triage one")))
	older := f.sim.Runs()[0]
	must(t, f.sim.StartRun(older.ID))
	must(t, f.webhook(ctx, f.comment(t, n, "/fs-triage two")))
	newer := f.sim.Runs()[1]
	f.settle()
	d := NewDriver(f.poller(t), nil)
	if st := f.cycle(t, d); st.DispatchesScheduled != 0 {
		t.Fatalf("dispatched %d, want 0: the event path did", st.DispatchesScheduled)
	}
	gh, err := github.NewClient(f.base, token, github.ClientOptions{HTTPClient: f.client(t)})
	must(t, err)
	in := map[string]any{}
	for k, v := range older.Inputs {
		in[k] = v
	}
	if _, _, err := gh.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "platform", ghadispatch.DefaultWorkflow,
		gogithub.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: in}); err != nil {
		t.Fatal(err)
	}
	if r, _ := f.sim.Run(newer.ID); r.Conclusion != githubsim.ConclusionCancelled {
		t.Fatalf("the newer comment's run is %s %s; want it cancelled by the group", r.Status, r.Conclusion)
	}
	f.clk.Advance(time.Minute)
	f.cycle(t, d)
	title := githubsim.DisplayTitle(newer.Inputs)
	if live := f.runs(false); live[title] != 1 {
		t.Fatalf("the newer comment has %d live runs after the cycle, want 1: %v", live[title], live)
	}
	f.startRuns(t)
	f.clk.Advance(time.Minute)
	f.cycle(t, d) // reads the list once more: its runs were waiting
	f.clk.Advance(time.Minute)
	before := f.counters()
	f.cycle(t, d)
	if c := f.counters().since(before); c.requests != 3 || c.notModified != 3 {
		t.Fatalf("idle cycle with every run completed: %+v; want the 3 listings' 304s only", c)
	}
}

// startRuns plays GitHub's runners until no run waits: a queued run
// starts, and one its concurrency group holds back gets its turn once
// the running one completed.
func (f *fixture) startRuns(t *testing.T) {
	t.Helper()
	for {
		held := false
		for _, r := range f.sim.Runs() {
			switch r.Status {
			case githubsim.StatusQueued:
				must(t, f.sim.StartRun(r.ID))
			case githubsim.StatusPending:
				held = true
			}
		}
		if !held {
			return
		}
		for _, r := range f.sim.Runs() {
			if r.Status == githubsim.StatusInProgress {
				must(t, f.sim.CompleteRun(r.ID, githubsim.ConclusionSuccess))
			}
		}
	}
}
