package gitlabevent

import (
	"errors"
	"testing"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestMalformedAnswerIsAnError: when a confirming read is answered with
// what client-go's decoders panic on, or with a null where an element
// should be, the webhook fails with an error naming the malformed answer
// (not a refusal of the payload), and the same webhook is confirmed once
// GitLab answers properly.
func TestMalformedAnswerIsAnError(t *testing.T) {
	labelled := func(t *testing.T, f *fixture) []byte {
		hook, err := f.sim.ChangeLabels("acme/platform", gitlabsim.NoteableIssue, 1, f.alice.ID, []string{"triage"}, nil)
		must(t, err)
		return hook
	}
	hook := func(name string) func(*testing.T, *fixture) []byte {
		return func(_ *testing.T, f *fixture) []byte { return f.hooks[name] }
	}
	tests := []struct {
		name  string
		hook  func(*testing.T, *fixture) []byte
		fault gitlabsim.Fault
	}{
		{"an issue without id", hook("issue_open"),
			gitlabsim.Fault{Endpoint: "get_issue", Status: 200, Body: `{"iid":1,"title":"x"}`}},
		{"a merge request whose labels mix objects and strings", hook("mr_open"),
			gitlabsim.Fault{Endpoint: "get_merge_request", Status: 200, Body: `{"id":1,"iid":1,"labels":[{"name":"review"},"x"]}`}},
		{"a null label event", labelled,
			gitlabsim.Fault{Endpoint: "issue_label_events", Status: 200, Body: `[null]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			hook := tc.hook(t, f)
			f.sim.InjectFault(tc.fault)
			_, err := f.read(t, hook)
			if !errors.Is(err, glapi.ErrMalformed) || errors.Is(err, ErrNotConfirmed) {
				t.Fatalf("err = %v, want a malformed answer, not a refusal", err)
			}
			if _, err := f.read(t, hook); err != nil {
				t.Fatalf("answered properly, the webhook fails: %v", err)
			}
		})
	}
}
