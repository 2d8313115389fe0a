package gitlabpoll

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// perNote runs, for every note, a harness of its own named after the
// note's id ("n<id>"): each note is its own scope, so none is coalesced
// into another or superseded, and each must end with exactly one live
// pipeline. Other changes match nothing.
type perNote struct{}

func (perNote) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	c := ev.Transition.Comment
	if c == nil {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	name := "n" + c.ID
	return poll.Decision{Verdict: poll.VerdictRun, Runs: []plan.Run{{Harness: name, Event: ev, Key: scope.KeyOf(name, ev, "gitlab")}}}
}

func (perNote) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }

// TestSameSecondNotes: 3 pollers configured with grace: 0s run a cycle
// each after every note, while 40 notes land on 4 merge requests a few
// hundred milliseconds apart, so that many are made in the same second
// as an earlier note on the same merge request that a cycle already saw
// (GitLab's documentation gives its times to the second, as the emulator
// stamps them). Every note runs its own harness; each ends with exactly
// one live pipeline: none lost, none doubled.
func TestSameSecondNotes(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	var mrs []gitlabsim.MergeRequest
	for i := range 4 {
		m, _, err := f.sim.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceBranch: fmt.Sprint("b", i),
			TargetBranch: "main", Title: "t", AuthorID: f.alice.ID})
		must(t, err)
		mrs = append(mrs, m)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	out := f.output(t)
	var ins []*Input
	for range 3 {
		ins = append(ins, f.configured(t, "grace: 0s"))
	}
	round := func() {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, len(ins))
		for _, in := range ins {
			wg.Go(func() {
				_, err := poll.Run(ctx, poll.Options{Driver: in.Driver, Core: perNote{}, Output: out, JitterMax: -1,
					Now: f.clk.Now, Validate: (*event.Event).Validate, N: 100})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			must(t, err)
		}
	}
	rng := rand.New(rand.NewPCG(36, 2))
	ids := map[int64]bool{}
	sameSecond, last := 0, map[int64]time.Time{}
	for i := range 40 {
		f.clk.Advance(time.Duration(rng.IntN(400)) * time.Millisecond)
		m := mrs[rng.IntN(len(mrs))]
		n, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, fmt.Sprint("/fs-run ", i))
		must(t, err)
		ids[n.ID] = true
		if s := n.CreatedAt.Truncate(time.Second); last[m.IID].Equal(s) {
			sameSecond++
		} else {
			last[m.IID] = s
		}
		round()
	}
	f.clk.Advance(10 * time.Second)
	round()
	round()
	if sameSecond < 5 {
		t.Fatalf("only %d notes made in the same second as an earlier one on their merge request; the test needs several", sameSecond)
	}
	live := map[string]int{}
	for _, p := range f.sim.Pipelines(project) {
		if p.Status != gitlabsim.StatusCanceled {
			live[p.Variables[gitlabpipeline.VarAgent]]++
		}
	}
	lost, doubled := 0, 0
	for id := range ids {
		switch n := live["n"+strconv.FormatInt(id, 10)]; {
		case n == 0:
			lost++
			t.Errorf("note %d: no live pipeline", id)
		case n > 1:
			doubled++
			t.Errorf("note %d: %d live pipelines", id, n)
		}
	}
	if len(live) != len(ids) {
		t.Errorf("%d agents with live pipelines, want %d (one per note): %v", len(live), len(ids), live)
	}
	t.Logf("%d notes (%d in the same second as an earlier one on their merge request): %d lost, %d doubled, %d pipelines created",
		len(ids), sameSecond, lost, doubled, len(f.sim.Pipelines(project)))
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
