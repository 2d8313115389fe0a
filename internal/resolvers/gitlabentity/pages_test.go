package gitlabentity

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// calls counts the emulator's requests per endpoint made by fn.
func (f *fixture) calls(fn func()) map[string]int {
	eps := []string{"get_issue", "issue_notes", "issue_label_events", "get_user", "get_member_all"}
	before := map[string]int{}
	for _, ep := range eps {
		before[ep] = f.sim.Calls(ep)
	}
	fn()
	out := map[string]int{}
	for _, ep := range eps {
		if n := f.sim.Calls(ep) - before[ep]; n != 0 {
			out[ep] = n
		}
	}
	return out
}

func sameCalls(t *testing.T, got, want map[string]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("calls %v, want %v", got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("calls %v, want %v", got, want)
			return
		}
	}
}

func TestPagination(t *testing.T) {
	tests := []struct {
		name string
		// setUp adds activity to issue iid (created by bob, no labels).
		setUp     func(t *testing.T, f *fixture, iid int64)
		truncated bool
		elements  int
		newest    string // how the newest element's body or label starts
		calls     map[string]int
	}{
		{"120 notes: one page of the newest 100, older ones cut",
			func(t *testing.T, f *fixture, iid int64) {
				for i := range 120 {
					f.tick()
					_, _, err := f.sim.AddNote(project, gitlabsim.NoteableIssue, iid, f.carol.ID, "note "+itoa(int64(i)))
					must(t, err)
				}
			}, true, entity.MaxActivity, "note 119",
			map[string]int{"get_issue": 1, "issue_notes": 1, "issue_label_events": 1, "get_user": 1, "get_member_all": 1}},
		{"150 newer system notes: read past them to the 10 comments",
			func(t *testing.T, f *fixture, iid int64) {
				for i := range 10 {
					f.tick()
					_, _, err := f.sim.AddNote(project, gitlabsim.NoteableIssue, iid, f.carol.ID, "note "+itoa(int64(i)))
					must(t, err)
				}
				for range 150 {
					f.tick()
					_, err := f.sim.AddSystemNote(project, gitlabsim.NoteableIssue, iid, f.alice.ID, "changed the description")
					must(t, err)
				}
			}, false, 11, "note 9",
			map[string]int{"get_issue": 1, "issue_notes": 2, "issue_label_events": 1, "get_user": 2, "get_member_all": 2}},
		{"250 label events: the first page, then the last, newest first",
			func(t *testing.T, f *fixture, iid int64) { f.labels(t, iid, 250) },
			true, 40, "l24", // cut at l200's minute: l210 … l249
			map[string]int{"get_issue": 1, "issue_notes": 1, "issue_label_events": 2, "get_user": 1, "get_member_all": 1}},
		{"180 label events: both pages read, the activity bounded",
			func(t *testing.T, f *fixture, iid int64) { f.labels(t, iid, 180) },
			true, entity.MaxActivity, "l17",
			map[string]int{"get_issue": 1, "issue_notes": 1, "issue_label_events": 2, "get_user": 1, "get_member_all": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			is, _, err := f.sim.CreateIssue(project, f.bob.ID, "Busy", "Long story.", nil)
			must(t, err)
			tc.setUp(t, f, is.IID)
			var e *entity.Entity
			got := f.calls(func() { e = resolve(t, f.resolver(), ref(entity.KindWorkItem, is.IID)) })
			sameCalls(t, got, tc.calls)
			if e.ActivityTruncated != tc.truncated || len(e.Activity) != tc.elements {
				t.Errorf("%d elements, truncated %v; want %d, %v", len(e.Activity), e.ActivityTruncated, tc.elements, tc.truncated)
			}
			if el := e.Activity[0]; !strings.HasPrefix(el.Body+el.Label, tc.newest) {
				t.Errorf("newest element %+v, want %q", el, tc.newest)
			}
			if body := e.Activity[len(e.Activity)-1]; (body.Kind == entity.ElementBody) == tc.truncated {
				t.Errorf("oldest element %s (truncated %v): the body is kept exactly when nothing was cut", body.Kind, tc.truncated)
			}
		})
	}
}

// labels adds n labels l0 … l<n-1> to issue iid as carol, ten a minute
// (label events of one minute share their time).
func (f *fixture) labels(t *testing.T, iid int64, n int) {
	t.Helper()
	for i := 0; i < n; i += 10 {
		f.tick()
		var add []string
		for j := i; j < min(i+10, n); j++ {
			add = append(add, "l"+itoa(int64(j)))
		}
		_, err := f.sim.ChangeLabels(project, gitlabsim.NoteableIssue, iid, f.carol.ID, add, nil)
		must(t, err)
	}
}

// stripTotalPages drops X-Total-Pages from every answer, as GitLab does
// for listings of more than 10,000 items.
type stripTotalPages struct{ next http.RoundTripper }

func (s stripTotalPages) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if err == nil && strings.HasSuffix(r.URL.Path, "/resource_label_events") {
		resp.Header.Del("X-Total-Pages")
		resp.Header.Del("Link")
	}
	return resp, err
}

// Label events cannot be read newest first without the page count: the
// resolution fails rather than return the oldest.
func TestLabelEventsWithoutPageCountDeny(t *testing.T) {
	f := newFixtureWith(t, func(next http.RoundTripper) http.RoundTripper { return stripTotalPages{next} })
	is, _, err := f.sim.CreateIssue(project, f.bob.ID, "Busy", "", nil)
	must(t, err)
	f.labels(t, is.IID, 101)
	if _, err := f.resolver().Resolve(context.Background(), ref(entity.KindWorkItem, is.IID)); err == nil || !strings.Contains(err.Error(), "label events") {
		t.Fatalf("Resolve: %v, want an error about the label events", err)
	}
	// One page needs no count.
	small, _, err := f.sim.CreateIssue(project, f.bob.ID, "Quiet", "", nil)
	must(t, err)
	f.labels(t, small.IID, 3)
	if e := resolve(t, f.resolver(), ref(entity.KindWorkItem, small.IID)); len(e.Activity) != 3 || e.ActivityTruncated {
		t.Errorf("%d elements, truncated %v", len(e.Activity), e.ActivityTruncated)
	}
}
