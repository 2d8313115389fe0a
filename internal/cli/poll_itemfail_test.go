package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// A cycle in which one issue failed exits 1 (so a cron job pages), after
// dispatching the issues that worked; the next cycle retries the failed
// one and exits 0.
func TestPollItemFailureExits1(t *testing.T) {
	f := newPollFixture(t)
	a := f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"})
	b := f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"})
	if code, out, errs := f.run(t, "poll", "seed"); code != 0 {
		t.Fatalf("seed: %d %q %s", code, out, errs)
	}
	f.sim.AddComment(a, "acct-dev", "/fs-triage one")
	f.sim.AddComment(b, "acct-dev", "/fs-triage two")
	// The comments come inline with discovery's search; the first lock
	// write is the call of one item that fails.
	f.sim.InjectFault(jirasim.Fault{Endpoint: "PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}", Status: 400})

	code, out, errs := f.run(t, "poll")
	var first []map[string]string
	if code != 1 || json.Unmarshal([]byte(out), &first) != nil || len(first) != 1 {
		t.Fatalf("cycle with a failed item: exit %d, plan %q; want 1 and one entry\n%s", code, out, errs)
	}
	if !strings.Contains(errs, `"items_failed":1`) {
		t.Errorf("cycle record lacks items_failed=1: %s", errs)
	}
	code, out, errs = f.run(t, "poll")
	var second []map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &second) != nil || len(second) != 1 ||
		second[0]["normalized_event"] == first[0]["normalized_event"] {
		t.Fatalf("retry cycle: exit %d, plan %q; want 0 and the other issue's entry\n%s", code, out, errs)
	}
}
