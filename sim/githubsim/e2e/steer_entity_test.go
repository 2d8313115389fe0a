package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/steer"
)

// entityHarness steers, with GitHub among its entity sources: a comment
// event decides only when its own comment survived the activity filter
// (entity.min_role maintain), above the gate (authorization.min_role
// triage).
const entityHarness = `role: triage
entity:
  sources: [github]
  min_role: maintain
trigger: >-
  event != null && event.transition.kind == "comment_added" &&
  entity.activity.exists(a, a.kind == "comment" && a.command == "/fs-triage" &&
    a.id == event.transition.comment.id)
run:
  command: ["sh", "-c", %q]
  isolation: none
  env: [STEER_COPY, STEER_RAN]
steer: {enabled: true}
`

// A follow-up on an item whose harness declares entity sources is
// decided exactly as its dispatch: the entity resolved from GitHub and
// its activity filtered for the harness's min_role. Trina passes the
// gate (triage) but her comment is filtered out of the entity (below
// maintain), Mallory does not pass it (read): neither comment starts a
// run nor is delivered; Alice's (maintain) starts the pending run, is
// delivered into the running agent, recorded, and the pending run exits
// without its agent. With the real `fullsend run`.
func TestSteerEntitySourceHarnessFiltersTheActivity(t *testing.T) {
	bin := killBinary(t)
	w := newSteerWorld(t, 1, "{enabled: true}")
	write(t, filepath.Join(w.dir, "config.yaml"), "version: 1\nrepo: "+steerRepo+"\nauthorization:\n  min_role: triage\n"+
		"agents:\n  - name: triage\n    source: triage.yaml\noutputs:\n  gha-dispatch:\n    workflow: fullsend-run.yml\n    ref: main\n")
	write(t, filepath.Join(w.dir, "triage.yaml"), fmt.Sprintf(entityHarness, fmt.Sprintf(steerAgent, 1)))
	if err := w.gs.SetPermission(steerRepo, "trina", "triage"); err != nil {
		t.Fatal(err)
	}
	w.comment(t, "alice", "/fs-triage the importer drops rows")
	runs := w.runs()
	if len(runs) != 1 || runs[0].Inputs["normalized_entity"] == "" {
		t.Fatalf("%d runs, want 1 carrying its entity", len(runs))
	}
	active := runs[0].ID
	if err := w.gs.StartRun(active); err != nil {
		t.Fatal(err)
	}
	trina := w.comment(t, "trina", "/fs-triage drop the table")
	mallory := w.comment(t, "mallory", "/fs-triage drop the other table")
	if n := len(w.runs()); n != 1 {
		t.Fatalf("%d runs after the comments below min_role, want 1: they start nothing", n)
	}
	c2 := w.comment(t, "alice", "/fs-triage also handle the retries")
	runs = w.runs()
	if len(runs) != 2 {
		t.Fatalf("%d runs, want the active and alice's pending one", len(runs))
	}

	p := startRun(t, bin, w.dir, ghRunEnv(t, w, active))
	if code := p.wait(t); code != 0 {
		t.Fatalf("the active run exited %d\n%s", code, p.logs.String())
	}
	box, err := os.ReadFile(w.env["STEER_COPY"])
	if err != nil {
		t.Fatalf("%v\n%s", err, p.logs.String())
	}
	lines := strings.Split(strings.TrimSpace(string(box)), "\n")
	m, err := steer.DecodeMessage([]byte(lines[0]))
	if len(lines) != 1 || err != nil || m.ID != steer.IDOf(c2) || m.Actor != "alice" {
		t.Fatalf("mailbox %q (%+v, %v): want alice's follow-up alone", box, m, err)
	}
	for who, id := range map[string]int64{"trina": trina, "mallory": mallory} {
		if w.replies(t, "triage", id) != 0 {
			t.Errorf("%s's comment was recorded as delivered", who)
		}
	}
	if n := w.replies(t, "triage", c2); n != 1 {
		t.Fatalf("%d records of alice's follow-up, want 1", n)
	}

	if err := w.gs.CompleteRun(active, "success"); err != nil {
		t.Fatal(err)
	}
	if err := w.gs.StartRun(runs[1].ID); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(w.env["STEER_RAN"])
	q := startRun(t, bin, w.dir, ghRunEnv(t, w, runs[1].ID))
	if code := q.wait(t); code != 0 {
		t.Fatalf("the pending run exited %d\n%s", code, q.logs.String())
	}
	if _, err := os.Stat(w.env["STEER_RAN"]); err == nil || !strings.Contains(q.logs.String(), "delivered into the run before it") {
		t.Fatalf("the pending run started its agent\n%s", q.logs.String())
	}
}
