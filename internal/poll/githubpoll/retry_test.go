package githubpoll

import (
	"net/http"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestFailedDispatchRetried: a dispatch that failed, refused by GitHub or
// of unknown outcome (a server error after the request was sent), leaves
// the item unhandled: the same poller's next cycle dispatches the change,
// once. (The cycle records its intent through Advance before
// dispatching; that is no checkpoint past the change.)
func TestFailedDispatchRetried(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
	}{
		{"refused", http.StatusUnprocessableEntity},
		{"server error", http.StatusBadGateway},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			n := f.openIssue(t, false)
			f.comment(t, n, "/fs-triage")
			f.settle()
			d := NewDriver(f.poller(t), nil)
			f.sim.Inject(githubsim.Fault{Endpoint: githubsim.EndpointDispatch, Status: tc.status, Times: 10})
			res, _ := f.run(t.Context(), d)
			if st := res.Stats; st.DispatchesFailed != 1 || st.DispatchesScheduled != 0 {
				t.Fatalf("first cycle: %d failed, %d dispatched; want the one dispatch failed", st.DispatchesFailed, st.DispatchesScheduled)
			}
			f.sim.ClearFaults()
			if st := f.cycle(t, d); st.DispatchesScheduled != 1 {
				t.Fatalf("the next cycle dispatched %d, want 1: the failed change", st.DispatchesScheduled)
			}
			if st := f.cycle(t, d); st.DispatchesScheduled != 0 {
				t.Fatalf("the cycle after dispatched %d, want 0", st.DispatchesScheduled)
			}
			f.checkOnce(t, 1)
		})
	}
}
