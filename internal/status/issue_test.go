package status

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// issueWorld has PROJ-1 with a checkpoint, a running lock and, after it,
// a developer's command, an outsider's, a bot's and a plain comment.
func issueWorld(t *testing.T) *world {
	w := newWorld(t)
	w.sim.AddUser(jirasim.User{AccountID: dev, DisplayName: "Dana"})
	w.sim.AddUser(jirasim.User{AccountID: outsider, DisplayName: "Oscar"})
	key := w.issue("Importer drops rows")
	w.set(key, w.keys.check, lastcheck.LastCheck{TS: w.clk.Now()})
	for _, c := range []struct{ who, text string }{
		{dev, "/fs-triage what is missing?"},
		{outsider, "/fs-triage do it for me"},
		{botAcct, "/fs-triage from the bot"},
		{dev, "just a note"},
		{dev, "/fs-triage newest request"},
	} {
		w.clk.Set(w.clk.Now().Add(time.Minute))
		w.sim.AddComment(key, c.who, c.text)
	}
	w.lock(key, other, polllock.PhaseRunning, 30*time.Second, "gha-dispatch 9000 https://github.example/acme/platform/actions/runs/9000")
	return w
}

func TestIssueGolden(t *testing.T) {
	for _, tc := range []struct{ format, golden string }{
		{FormatTable, "issue.golden"},
		{FormatJSON, "issue.json.golden"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			w := issueWorld(t)
			var out bytes.Buffer
			o := w.options(&out)
			o.Issue, o.Format = "PROJ-1", tc.format
			got, err := w.run(o)
			if err != nil {
				t.Fatalf("%v\n%s", err, got)
			}
			golden(t, tc.golden, got)
			if wr := w.writes(); len(wr) != 0 {
				t.Errorf("status --issue wrote to Jira: %v", wr)
			}
			calls := w.sim.Calls()
			t.Logf("calls %v", calls)
			if calls["POST /rest/api/3/search/jql"] != 1 || calls["POST /rest/api/3/changelog/bulkfetch"] != 1 {
				t.Errorf("calls %v: want one search and one bulk changelog", calls)
			}
		})
	}
}

func TestIssueDryRunDecision(t *testing.T) {
	w := issueWorld(t)
	var out bytes.Buffer
	o := w.options(&out)
	o.Issue, o.Format = "PROJ-1", FormatJSON
	s, err := w.snapshot(t, o)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Issue
	verdicts := []string{}
	for _, c := range r.Changes {
		verdicts = append(verdicts, c.Verdict)
	}
	if got := strings.Join(verdicts, ","); got != "run,denied,bot,no_match,run" {
		t.Errorf("verdicts %s", got)
	}
	if len(r.WouldDispatch) != 1 || r.WouldDispatch[0].Change != r.Changes[4].Change {
		t.Errorf("would dispatch %+v, want the newest request only (coalesced)", r.WouldDispatch)
	}
	if r.Lock == nil || r.Held == "" || len(r.Runs) != 1 {
		t.Errorf("lock %+v held %q runs %v", r.Lock, r.Held, r.Runs)
	}
}

func TestIssueUnknown(t *testing.T) {
	w := newWorld(t)
	w.issue("only issue")
	var out bytes.Buffer
	o := w.options(&out)
	o.Issue = "PROJ-99"
	_, err := w.run(o)
	if !config.IsInvalid(err) || !strings.Contains(err.Error(), "PROJ-99: no such issue") {
		t.Errorf("err = %v", err)
	}
}

func TestAuthRefused(t *testing.T) {
	w := newWorld(t)
	var out bytes.Buffer
	o := w.options(&out)
	o.Getenv = func(k string) string { return map[string]string{"JIRA_TOKEN": "wrong-token-value"}[k] }
	_, err := w.run(o)
	if !config.IsInvalid(err) || !errors.Is(err, errAuth) || !strings.Contains(err.Error(), "$JIRA_TOKEN") {
		t.Errorf("err = %v", err)
	}
	if strings.Contains(err.Error(), "wrong-token-value") || strings.Contains(out.String(), "wrong-token-value") {
		t.Error("the token was printed")
	}
}

// With an entity-source harness, --issue decides as a cycle does: over
// each change's event and the item's entity (resolved by jira-poll's
// entity stage, reads only), the outsider's command filtered out of it.
func TestIssueDecidesWithTheEntity(t *testing.T) {
	w := issueWorld(t)
	w.editConfig(func(s string) string {
		return strings.Replace(s, "poll:\n", "  - name: reconcile\n    source: harness/reconcile.yaml\npoll:\n", 1)
	})
	h := "role: reconcile\nentity: {sources: [jira]}\ntrigger: entity.activity.exists(a, a.kind == \"comment\" && a.command == \"/fs-triage\")\n"
	if err := os.WriteFile(filepath.Join(w.dir, "harness", "reconcile.yaml"), []byte(h), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := w.options(&out)
	o.Issue, o.Format = "PROJ-1", FormatJSON
	s, err := w.snapshot(t, o)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Issue
	var verdicts []string
	for _, c := range r.Changes {
		verdicts = append(verdicts, c.Verdict+":"+strings.Join(c.Harnesses, "+"))
	}
	// The plain note starts no event-only run, but the entity still holds
	// the developer's commands.
	if got := strings.Join(verdicts, ","); got != "run:triage+reconcile,denied:,bot:,run:reconcile,run:triage+reconcile" {
		t.Errorf("verdicts %s", got)
	}
	if len(r.WouldDispatch) != 2 || r.WouldDispatch[1].Harness != "reconcile" || r.WouldDispatch[1].Change != r.Changes[4].Change {
		t.Errorf("would dispatch %+v", r.WouldDispatch)
	}
	if wr := w.writes(); len(wr) != 0 {
		t.Errorf("status --issue wrote to Jira: %v", wr)
	}
	calls := w.sim.Calls()
	t.Logf("calls %v", calls)
	for ep := range calls {
		if !strings.HasPrefix(ep, "GET ") && ep != "POST /rest/api/3/search/jql" && ep != "POST /rest/api/3/changelog/bulkfetch" {
			t.Errorf("%s called: status --issue only reads", ep)
		}
	}
	if calls["GET /rest/api/3/issue/{issueIdOrKey}"] != 1 {
		t.Errorf("calls %v: want the one issue read of the entity stage", calls)
	}
}
