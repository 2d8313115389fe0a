package jirapoll_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// One edit adding 1 000 labels is one change: it costs no more Jira calls
// than a small edit, quarantines nothing (the event stays valid: its
// labels are capped like every mapper's), and the issue's unrelated
// /fs-triage comment is dispatched.
func TestBulkLabelEditIsOneChange(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	e.sim.AddLabel(k, "existing", alice)
	e.seed(k)
	e.clock.Advance(3 * time.Millisecond)
	labels := []string{"existing"}
	for i := range 1000 {
		labels = append(labels, fmt.Sprintf("bulk-%04d", i))
	}
	e.sim.SetLabels(k, labels, alice)
	e.sim.AddComment(k, alice, "/fs-triage please")
	rec := &recorder{}
	p := e.poller(pollerOpts{out: rec})
	e.sim.ResetCalls()
	res, err := p.cycle(t.Context())
	st := res.Stats
	calls := sumCalls(e.sim.Calls())
	t.Logf("events %d, invalid %d, quarantined %d, Jira calls %d, runs %v, cycle %s, err %v",
		st.Events, st.EventsInvalid, st.ChangesQuarantined, calls, rec.count(), st.Duration, err)
	if err != nil {
		t.Fatalf("cycle: %v", err)
	}
	if st.ChangesQuarantined != 0 || st.EventsInvalid != 0 {
		t.Errorf("%d changes quarantined, %d invalid events; want none", st.ChangesQuarantined, st.EventsInvalid)
	}
	got := rec.count()
	for _, h := range []string{"triage", "audit", "watch"} {
		if got[k+"/"+h] != 1 {
			t.Errorf("%s runs of %s, want 1 (runs %v)", h, k, got)
		}
	}
	if calls > 12 {
		t.Errorf("%d Jira calls, want at most 12", calls)
	}
	for _, r := range rec.all() {
		if r.Harness == "watch" && !strings.HasPrefix(r.Event.Transition.Label.Name, "bulk-") {
			t.Errorf("watch run for label %q", r.Event.Transition.Label.Name)
		}
	}
	if r := rec.all()[0]; len(r.Event.State.Labels) != 1000 || !r.Event.State.LabelsTruncated {
		t.Errorf("state: %d labels, truncated %v; want the 1000 the schema allows, marked truncated", len(r.Event.State.Labels), r.Event.State.LabelsTruncated)
	}
}
