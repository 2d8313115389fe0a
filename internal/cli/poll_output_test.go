package cli

import (
	"encoding/json"
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
	if res.Issue != key || !res.Deleted || res.Lock == nil || res.Lock.ID == "" || res.Lock.Phase != "dispatched" ||
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
