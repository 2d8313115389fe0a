package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestPollSeedAndCancelJSON(t *testing.T) {
	f := newPollFixture(t)
	key := f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"})
	code, out, errs := f.run(t, "poll", "seed", "-o", "json")
	var seeds []seedResult
	if code != 0 || json.Unmarshal([]byte(out), &seeds) != nil {
		t.Fatalf("seed: %d %q %s", code, out, errs)
	}
	if len(seeds) != 1 || seeds[0] != (seedResult{Driver: "jira-poll", Site: seeds[0].Site, Matched: 1, Seeded: 1}) || seeds[0].Site == "" {
		t.Errorf("seed result %+v", seeds)
	}
	f.sim.AddComment(key, "acct-dev", "/fs-triage")
	if code, out, errs = f.run(t, "poll"); code != 0 {
		t.Fatalf("poll: %d %q %s", code, out, errs)
	}
	code, out, errs = f.run(t, "poll", "cancel", "--issue", key, "-o", "json")
	var res cancelResult
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("cancel: %d %q %s", code, out, errs)
	}
	if res.Issue != key || !res.Deleted || res.Lock == nil || res.Lock.ID == "" || res.Lock.Phase != "pending" ||
		res.Property != "fullsend.poll.acme.platform.lock" || len(res.Runs) != 0 {
		t.Errorf("cancel result %+v (lock %+v)", res, res.Lock)
	}
	code, out, _ = f.run(t, "poll", "cancel", "--issue", key, "-o", "json")
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.Deleted || res.Lock != nil {
		t.Errorf("cancel without a lock: %d %q", code, out)
	}
	if code, _, errs = f.run(t, "poll", "seed", "-o", "yaml"); code != ExitUsage {
		t.Errorf("-o yaml: exit %d, stderr %s", code, errs)
	}
}

// A dry run shows where each lock would live but no lock id (none was
// taken), and its cycle record counts planned runs, not dispatches.
func TestPollDryRunClaimsNothing(t *testing.T) {
	f := newPollFixture(t)
	key := f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"})
	f.sim.AddComment(key, "acct-dev", "/fs-triage")
	code, out, errs := f.run(t, "poll", "--dry-run")
	var plan []map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || len(plan) != 1 {
		t.Fatalf("dry run: %d %q %s", code, out, errs)
	}
	var lock map[string]string
	if err := json.Unmarshal([]byte(plan[0]["poll_lock"]), &lock); err != nil || lock["id"] != "" ||
		lock["property"] != key+"/fullsend.poll.acme.platform.lock" {
		t.Errorf("dry-run poll_lock %q (%v)", plan[0]["poll_lock"], err)
	}
	for _, want := range []string{`"dry_run":true`, `"dispatches_scheduled":0`, `"runs_planned":1`, `"duration_ms":`} {
		if !strings.Contains(errs, want) {
			t.Errorf("cycle record lacks %s: %s", want, errs)
		}
	}
}
