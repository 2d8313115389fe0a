// Package examples holds example configurations; this test keeps them
// loadable as the README and docs show them.
package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestExampleConfigsLoad(t *testing.T) {
	env := map[string]string{"JIRA_BASE_URL": "http://127.0.0.1:18080"}
	for dir, agents := range map[string]int{".fullsend": 2, "rehearsal/.fullsend": 1, "entities/.fullsend": 3, "scheduled/.fullsend": 1, "steering/.fullsend": 1} {
		_, reg, err := harness.LoadDir(dir, func(k string) string { return env[k] })
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if reg.Len() != agents {
			t.Errorf("%s: %d enabled agents, want %d", dir, reg.Len(), agents)
		}
	}
}

func TestRehearsalSeedApplies(t *testing.T) {
	f, err := os.Open("rehearsal/seed.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sd, err := jirasim.ParseSeed(f)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := jirasim.New(jirasim.Options{}).ApplySeed(sd)
	if err != nil || len(keys) != 3 {
		t.Fatalf("ApplySeed = %v, %v", keys, err)
	}
}

// TestExampleAgentsRun starts every agent program the example harnesses
// name, from examples/ as the README does, with the environment `fullsend
// run` gives an agent, and checks it reports what it got.
func TestExampleAgentsRun(t *testing.T) {
	cfg, _, err := harness.LoadDir(".fullsend", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	hs, err := harness.LoadAll(cfg)
	if err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"repo":"acme/platform"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		t.Run(h.Name, func(t *testing.T) {
			cmd := exec.Command(h.Command[0], h.Command[1:]...)
			cmd.Env = append(os.Environ(), "FULLSEND_HARNESS="+h.Name, "FULLSEND_WORK_ITEM_KEY=PROJ-123",
				"FULLSEND_EVENT_FILE="+event)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %v\n%s", h.Command, err, out)
			}
			for _, want := range []string{"harness=" + h.Name, "PROJ-123", `{"repo":"acme/platform"}`} {
				if !strings.Contains(string(out), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestGitLabSamplePayload: the sample GitLab webhook body is the one the
// GitLab emulator produces for a note on an issue, which the gitlab-event
// driver's golden test confirms against the emulator and maps
// (internal/input/gitlabevent, TestGolden "issue_note").
func TestGitLabSamplePayload(t *testing.T) {
	sample, err := os.ReadFile("events/gitlab-issue-note.json")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../internal/input/gitlabevent/testdata/issue_note.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(sample) != string(golden) {
		t.Error("events/gitlab-issue-note.json differs from internal/input/gitlabevent/testdata/issue_note.json; copy it again")
	}
}
