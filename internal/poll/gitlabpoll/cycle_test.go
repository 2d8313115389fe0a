package gitlabpoll

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// commentCore runs harness "triage" for every comment.
type commentCore struct{}

func (commentCore) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	if ev.Transition.Comment == nil {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	return poll.Decision{Verdict: poll.VerdictRun,
		Runs: []plan.Run{{Harness: harness, Event: ev, Key: scope.KeyOf(harness, ev, "gitlab")}}}
}

func (commentCore) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }
func (commentCore) Refund([]plan.Run)                                    {}
func (commentCore) DecidesEntities(string) bool                          { return false }

// TestPollCycle: through the shared poll cycle and the gitlab-pipeline
// output, a note the webhook path dispatched is not dispatched again, a
// note whose webhook was dropped is dispatched once, and the next cycle
// (or a restarted poller) adds nothing.
func TestPollCycle(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	m := f.openMR(t)
	_, hook, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "first")
	must(t, err)
	must(t, f.webhook(ctx, hook))
	f.clk.Advance(time.Second)
	_, _, err = f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "second") // webhook dropped
	must(t, err)
	f.settle()
	out, err := gitlabpipeline.New(gitlabpipeline.Options{APIURL: f.base, Token: f.sim.Token(), Project: project, Ref: "main",
		Transport: f.tr})
	must(t, err)
	cycle := func(d *Driver) poll.CycleStats {
		t.Helper()
		res, err := pollcycle.Run(ctx, pollcycle.Options{Driver: d, Core: commentCore{}, Output: out, JitterMax: -1, Now: f.clk.Now,
			Validate: (*event.Event).Validate})
		must(t, err)
		return res.Stats
	}
	d := NewDriver(f.poller(t), nil)
	before := f.sim.CallsTotal()
	if st := cycle(d); st.DispatchesScheduled != 1 {
		t.Fatalf("first cycle dispatched %d runs, want 1 (the dropped note)", st.DispatchesScheduled)
	}
	t.Logf("poll cycle dispatching one change (another already dispatched): %d API calls", f.sim.CallsTotal()-before)
	if st := cycle(d); st.Eligible != 0 || st.DispatchesScheduled != 0 {
		t.Fatalf("second cycle: %d eligible, %d dispatched; want nothing", st.Eligible, st.DispatchesScheduled)
	}
	if st := cycle(NewDriver(f.poller(t), nil)); st.DispatchesScheduled != 0 {
		t.Fatalf("restarted poller dispatched %d runs, want 0", st.DispatchesScheduled)
	}
	// With a grace period a fresh note waits, then goes out once.
	f.clk.Advance(time.Second)
	_, _, err = f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "third") // webhook dropped
	must(t, err)
	p := f.poller(t)
	p.o.Grace = DefaultGrace
	g := NewDriver(p, nil)
	if st := cycle(g); st.DispatchesScheduled != 0 {
		t.Fatalf("note within the grace period dispatched %d runs, want 0", st.DispatchesScheduled)
	}
	f.clk.Advance(DefaultGrace)
	if st := cycle(g); st.DispatchesScheduled != 1 {
		t.Fatalf("note after the grace period dispatched %d runs, want 1", st.DispatchesScheduled)
	}
	// gitlab-pipeline cancels a waiting pipeline that a newer one of its
	// scope supersedes, so count every pipeline created.
	live := f.count(true)
	if len(live) != 3 {
		t.Fatalf("pipelines per key %v, want the three notes once each", live)
	}
	for k, n := range live {
		if n != 1 {
			t.Errorf("key %s: %d live pipelines", k, n)
		}
	}
}
