package status

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// With a harness that steers, --issue lists the follow-ups the tool's
// replies record as delivered, each with the run it reached, and the
// runs its lock records show the follow-ups they took: for one more call
// (the newest comments). A marker anyone else wrote records nothing.
func TestIssueListsSteersPerRun(t *testing.T) {
	w := issueWorld(t)
	h := filepath.Join(w.dir, "harness", "triage.yaml")
	b, err := os.ReadFile(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h, append(b, "steer: {enabled: true}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	key := "PROJ-1"
	w.clk.Set(w.clk.Now().Add(time.Minute))
	c := w.sim.AddComment(key, dev, "/fs-triage also the retries")
	n, _ := strconv.ParseInt(c, 10, 64)
	w.clk.Set(w.clk.Now().Add(time.Minute))
	w.sim.AddComment(key, botAcct, steer.ReplyText("triage", n, "gha-dispatch/9000"))
	w.sim.AddComment(key, outsider, steer.ReplyText("triage", 10003, "gha-dispatch/9000"))
	w.lock(key, other, polllock.PhaseRunning, 30*time.Second, "gha-dispatch 9000 https://github.example/acme/platform/actions/runs/9000")

	for _, format := range []string{FormatTable, FormatJSON} {
		var out bytes.Buffer
		o := w.options(&out)
		o.Issue, o.Format = key, format
		got, err := w.run(o)
		if err != nil {
			t.Fatalf("%v\n%s", err, got)
		}
		if wr := w.writes(); len(wr) != 0 {
			t.Errorf("status --issue wrote to Jira: %v", wr)
		}
		id := steer.IDOf(n)
		switch format {
		case FormatTable:
			if !strings.Contains(got, "STEERS (follow-ups delivered into a running agent, newest first) (1)") ||
				!strings.Contains(got, "gha-dispatch/9000  triage   "+id) ||
				!strings.Contains(got, "https://github.example/acme/platform/actions/runs/9000  "+id) ||
				strings.Contains(got, "comment-10003") {
				t.Errorf("table:\n%s", got)
			}
		case FormatJSON:
			if !strings.Contains(got, `"steers": [`) || !strings.Contains(got, `"run": "gha-dispatch/9000"`) ||
				!strings.Contains(got, `"comment": `+c) || strings.Contains(got, `"comment": 10003`) {
				t.Errorf("json:\n%s", got)
			}
		}
		if calls := w.sim.Calls(); calls["GET /rest/api/3/issue/{issueIdOrKey}/comment"] != 2 {
			t.Errorf("calls %v: want the detection's comment listing and the newest comments", calls)
		}
	}
}
