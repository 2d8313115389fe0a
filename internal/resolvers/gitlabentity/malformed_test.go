package gitlabentity

import (
	"context"
	"errors"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestMalformedAnswerIsAnError: a read of the resolution answered with
// what client-go's decoders panic on, or with a null element, fails that
// resolution with an error naming the malformed answer; the next one
// resolves.
func TestMalformedAnswerIsAnError(t *testing.T) {
	tests := []struct {
		name  string
		kind  string
		fault gitlabsim.Fault
	}{
		{"an issue without id", entity.KindWorkItem,
			gitlabsim.Fault{Endpoint: "get_issue", Status: 200, Body: `{"iid":1}`}},
		{"an issue whose labels mix objects and strings", entity.KindWorkItem,
			gitlabsim.Fault{Endpoint: "get_issue", Status: 200, Body: `{"id":1,"iid":1,"labels":[{"name":"bug"},"x"]}`}},
		{"a null note", entity.KindWorkItem,
			gitlabsim.Fault{Endpoint: "issue_notes", Status: 200, Body: `[{"id":5,"body":"x","author":{"id":1}},null]`}},
		{"a null label event", entity.KindChangeProposal,
			gitlabsim.Fault{Endpoint: "merge_request_label_events", Status: 200, Body: `[null]`}},
		{"a merge request whose labels mix objects and strings", entity.KindChangeProposal,
			gitlabsim.Fault{Endpoint: "get_merge_request", Status: 200, Body: `{"id":1,"iid":1,"labels":[{"name":"ci"},3]}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			rf := ref(tc.kind, f.issueScenario(t).IID)
			if tc.kind == entity.KindChangeProposal {
				mr, _ := f.mrScenario(t)
				rf = ref(tc.kind, mr.IID)
			}
			r := f.resolver()
			f.sim.InjectFault(tc.fault)
			if _, err := r.Resolve(context.Background(), rf); !errors.Is(err, glapi.ErrMalformed) {
				t.Fatalf("err = %v, want a malformed answer", err)
			}
			resolve(t, r, rf)
		})
	}
}
