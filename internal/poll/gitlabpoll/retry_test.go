package gitlabpoll

import (
	"net/http"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestFailedDispatchRetried: a pipeline creation that failed, refused by
// GitLab or of unknown outcome (a server error after the request was
// sent), leaves the merge request unhandled: the same poller's next cycle
// dispatches the note, once. (The cycle records its intent through
// Advance before dispatching; that is no checkpoint past the change.)
func TestFailedDispatchRetried(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
	}{
		{"refused", http.StatusBadRequest},
		{"server error", http.StatusBadGateway},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			m := f.openMR(t)
			_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "/fs-triage")
			must(t, err)
			f.settle()
			in, out := f.configured(t, "grace: 0s"), f.output(t)
			f.sim.InjectFault(gitlabsim.Fault{Endpoint: "create_pipeline", Status: tc.status, Times: 1})
			st, _ := f.runCycle(t, in, out)
			if st.DispatchesScheduled != 0 || len(f.count(true)) != 0 {
				t.Fatalf("first cycle dispatched %d (%v), want the creation failed", st.DispatchesScheduled, f.count(true))
			}
			if st, err := f.runCycle(t, in, out); err != nil || st.DispatchesScheduled != 1 {
				t.Fatalf("the next cycle dispatched %d (%v), want 1: the failed change", st.DispatchesScheduled, err)
			}
			if st, err := f.runCycle(t, in, out); err != nil || st.DispatchesScheduled != 0 {
				t.Fatalf("the cycle after dispatched %d (%v), want 0", st.DispatchesScheduled, err)
			}
			if live := f.live(); len(live) != 1 {
				t.Fatalf("pipelines per key %v, want the note's one", live)
			}
		})
	}
}
