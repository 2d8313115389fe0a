package gitlabpoll

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/poll/polltest"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// world is the fixture with its pollers, for polltest.SameSecond.
type world struct {
	*fixture
	mrs  []gitlabsim.MergeRequest
	ins  []*Input
	out  output.Driver
	core poll.Decider
}

func (w *world) Advance(d time.Duration) { w.clk.Advance(d) }

func (w *world) Comment(t *testing.T, i int, body string) (int64, time.Time) {
	n, _, err := w.sim.AddNote(project, gitlabsim.NoteableMergeRequest, w.mrs[i].IID, w.alice.ID, body)
	must(t, err)
	return n.ID, n.CreatedAt
}

func (w *world) Round(t *testing.T) {
	var fns []func() error
	for _, in := range w.ins {
		fns = append(fns, func() error {
			_, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: in.Driver, Core: w.core, Output: w.out, JitterMax: -1,
				Now: w.clk.Now, Validate: (*event.Event).Validate, N: 100})
			return err
		})
	}
	polltest.Together(t, fns...)
}

func (w *world) Live() map[string]int {
	out := map[string]int{}
	for _, p := range w.sim.Pipelines(project) {
		if p.Status != gitlabsim.StatusCanceled {
			out[p.Variables[glapi.VarAgent]]++
		}
	}
	return out
}

// TestSameSecondNotes: 3 pollers configured with grace: 0s run a cycle
// each after every note, while 40 notes land on 4 merge requests a few
// hundred milliseconds apart, so that many are made in the same second
// as an earlier note on the same merge request that a cycle already saw
// (GitLab's documentation gives its times to the second, as the emulator
// stamps them). Every note runs its own harness; each ends with exactly
// one live pipeline: none lost, none doubled.
func TestSameSecondNotes(t *testing.T) {
	f := newFixture(t)
	d := polltest.PerComment{Prefix: "n", Forge: "gitlab"}
	w := &world{fixture: f, out: f.output(t), core: d}
	for i := range 4 {
		m, _, err := f.sim.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceBranch: fmt.Sprint("b", i),
			TargetBranch: "main", Title: "t", AuthorID: f.alice.ID})
		must(t, err)
		w.mrs = append(w.mrs, m)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	for range 3 {
		w.ins = append(w.ins, f.configured(t, "grace: 0s"))
	}
	polltest.SameSecond(t, w, d, len(w.mrs), 40, 37)
	t.Logf("%d pipelines created", len(f.sim.Pipelines(project)))
}

// TestSameSecondWebhook: two notes made in the same second on one merge
// request are two changes on the webhook path too (their keys are told
// apart by the notes' ids): when only the first one's webhook arrives,
// the backstop dispatches the second, once.
func TestSameSecondWebhook(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	m := f.openMR(t)
	_, first, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "/fs-triage one")
	must(t, err)
	f.clk.Advance(300 * time.Millisecond)
	_, _, err = f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "/fs-triage two") // webhook dropped
	must(t, err)
	must(t, f.webhook(ctx, first))
	f.settle()
	in, out := f.configured(t, "grace: 0s"), f.output(t)
	if st, err := f.runCycle(t, in, out); err != nil || st.DispatchesScheduled != 1 {
		t.Fatalf("the backstop dispatched %d (%v), want 1: the second note", st.DispatchesScheduled, err)
	}
	if st, err := f.runCycle(t, in, out); err != nil || st.DispatchesScheduled != 0 {
		t.Fatalf("the next cycle dispatched %d (%v), want 0", st.DispatchesScheduled, err)
	}
	if all := f.count(true); len(all) != 2 {
		t.Fatalf("pipelines per key %v, want one per note", all)
	}
}

// TestIdleAfterWebhook: once the webhook path dispatched a note, the
// backstop's first cycle finds the merge request handled by the pipeline
// list, and every later idle cycle, `--watch` and one-shot with the state
// directory alike, is the two listings: no pipeline list, no user or
// membership lookup.
func TestIdleAfterWebhook(t *testing.T) {
	for _, oneShot := range []bool{false, true} {
		t.Run(map[bool]string{false: "--watch", true: "one-shot"}[oneShot], func(t *testing.T) {
			f, ctx := newStateFixture(t), context.Background()
			m := f.openMR(t)
			_, hook, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "/fs-triage")
			must(t, err)
			must(t, f.webhook(ctx, hook))
			f.settle()
			dir, in, out := t.TempDir(), f.configured(t, "grace: 0s"), f.output(t)
			cycle := func() int {
				t.Helper()
				if oneShot {
					st, calls := f.oneShot(t, dir, 0, out, nil)
					if st.DispatchesScheduled != 0 {
						t.Fatalf("dispatched %d, want 0: the webhook path did", st.DispatchesScheduled)
					}
					return calls
				}
				before := f.sim.CallsTotal()
				st, err := f.runCycle(t, in, out)
				must(t, err)
				if st.DispatchesScheduled != 0 {
					t.Fatalf("dispatched %d, want 0: the webhook path did", st.DispatchesScheduled)
				}
				return f.sim.CallsTotal() - before
			}
			t.Logf("first cycle: %d calls", cycle())
			for i := range 3 {
				f.clk.Advance(time.Minute)
				pipes, users := f.sim.Calls("list_pipelines"), f.sim.Calls("get_user")
				calls := cycle()
				pipes, users = f.sim.Calls("list_pipelines")-pipes, f.sim.Calls("get_user")-users
				if calls != 2 || pipes != 0 || users != 0 {
					t.Fatalf("idle cycle %d: %d calls, %d pipeline listings, %d user lookups; want the 2 listings only", i, calls, pipes, users)
				}
			}
			if live := f.live(); len(live) != 1 {
				t.Fatalf("pipelines per key %v, want the note's one", live)
			}
		})
	}
}
