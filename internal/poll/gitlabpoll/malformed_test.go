package gitlabpoll

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestMalformedAnswerFailsItsItem: GitLab (or what answers for it)
// sends what client-go's decoders panic on or what would hand the poller
// nil notes. A malformed notes listing fails its item alone, the other
// item's change is dispatched in the same cycle, and the next cycle
// dispatches the first; a malformed window listing fails the cycle with
// an error, and the next cycle dispatches both. Nothing panics.
func TestMalformedAnswerFailsItsItem(t *testing.T) {
	tests := []struct {
		name  string
		fault gitlabsim.Fault
		// dispatches in the cycle answered so, then in the next one
		first, next int
		cycleErr    bool
	}{
		{name: "a null note in the merge request's notes",
			fault: gitlabsim.Fault{Endpoint: "merge_request_notes", Status: 200, Body: `[{"id":9,"body":"x","author":{"id":1}},null]`},
			first: 1, next: 1},
		{name: "an issue without id in the window",
			fault: gitlabsim.Fault{Endpoint: "list_issues", Status: 200, Body: `[{"iid":1}]`},
			first: 0, next: 2, cycleErr: true},
		{name: "an issue whose labels mix objects and strings",
			fault: gitlabsim.Fault{Endpoint: "list_issues", Status: 200, Body: `[{"id":1,"iid":1,"labels":[{"name":"a"},"b"]}]`},
			first: 0, next: 2, cycleErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ctx := newFixture(t), context.Background()
			m := f.openMR(t)
			is, _, err := f.sim.CreateIssue(project, f.alice.ID, "Broken", "", nil)
			must(t, err)
			f.clk.Advance(DefaultLookback + time.Hour) // the openings are old
			_, _, err = f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "on the MR")
			must(t, err)
			_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, "on the issue")
			must(t, err)
			out, err := gitlabpipeline.New(gitlabpipeline.Options{APIURL: f.base, Token: f.sim.Token(), Project: project, Ref: "main",
				Transport: f.tr})
			must(t, err)
			d := NewDriver(f.poller(t), nil)
			cycle := func() (poll.CycleStats, error) {
				res, err := pollcycle.Run(ctx, pollcycle.Options{Driver: d, Core: commentCore{}, Output: out, JitterMax: -1, Now: f.clk.Now,
					Validate: (*event.Event).Validate})
				return res.Stats, err
			}
			f.settle() // the notes' second is over
			f.sim.InjectFault(tc.fault)
			st, err := cycle()
			switch {
			case tc.cycleErr && !errors.Is(err, glapi.ErrMalformed):
				t.Fatalf("cycle answered malformed: err = %v, want ErrMalformed", err)
			case !tc.cycleErr && st.ItemsFailed != 1:
				t.Errorf("cycle answered malformed: %d items failed (%v), want 1", st.ItemsFailed, err)
			}
			if st.DispatchesScheduled != tc.first {
				t.Errorf("cycle answered malformed dispatched %d runs, want %d", st.DispatchesScheduled, tc.first)
			}
			st, err = cycle()
			must(t, err)
			if st.DispatchesScheduled != tc.next || st.ItemsFailed != 0 {
				t.Errorf("next cycle: %d dispatched, %d failed; want %d, 0", st.DispatchesScheduled, st.ItemsFailed, tc.next)
			}
			if live := f.live(); len(live) != 2 {
				t.Errorf("pipelines per key %v, want both notes once", live)
			}
		})
	}
}
