package gitlabpoll

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestUpdatedAfterBoundary: GitLab lists what was updated on or after
// updated_after, so a subject whose last change is exactly at the window's
// start is listed; its change belongs to the window before (already
// dispatched) and is not dispatched a second time, by the same poller or
// a restarted one.
func TestUpdatedAfterBoundary(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	is, _, err := f.sim.CreateIssue(project, f.alice.ID, "t", "d", nil)
	must(t, err)
	f.clk.Advance(DefaultLookback + time.Hour)
	at := f.clk.Now()
	_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, "/fs-triage")
	must(t, err)
	f.settle()
	p := f.poller(t)
	st, err := p.Cycle(ctx)
	must(t, err)
	if st.Dispatched != 1 {
		t.Fatalf("first cycle %+v, want the note dispatched", st)
	}
	f.clk.Set(at.Add(DefaultLookback)) // the window now starts at the note
	for name, q := range map[string]*Poller{"same poller": p, "restarted poller": f.poller(t)} {
		st, err := q.Cycle(ctx)
		must(t, err)
		wantNew := map[string]int{"same poller": 0, "restarted poller": 1}[name]
		if st.Candidates != 1 || st.New != wantNew || st.Changes != 0 || st.Dispatched != 0 {
			t.Errorf("%s at the boundary: %+v; want the issue listed (updated on or after), %d new, nothing dispatched",
				name, st, wantNew)
		}
	}
	if n := len(f.count(true)); n != 1 {
		t.Fatalf("%d pipelines, want 1", n)
	}
}

// TestLabelEventsBeyondOnePage: a label change on the second page of an
// issue's label events (GitLab pages them by 100) is found and dispatched
// once.
func TestLabelEventsBeyondOnePage(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	is, _, err := f.sim.CreateIssue(project, f.alice.ID, "t", "d", nil)
	must(t, err)
	var old []string
	for i := range 130 {
		old = append(old, fmt.Sprint("old-", i))
	}
	_, err = f.sim.ChangeLabels(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, old, nil)
	must(t, err)
	f.clk.Advance(DefaultLookback + time.Hour)
	_, err = f.sim.ChangeLabels(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, []string{"fs:triage"}, nil)
	must(t, err)
	f.settle()
	before := f.sim.Calls("issue_label_events")
	st, err := f.poller(t).Cycle(ctx)
	must(t, err)
	if calls := f.sim.Calls("issue_label_events") - before; calls != 2 {
		t.Errorf("%d label event pages read, want 2 (131 events, 100 a page)", calls)
	}
	if st.Changes != 1 || st.Dispatched != 1 {
		t.Fatalf("cycle %+v, want the label change on page 2 dispatched", st)
	}
}
