package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// The plans of event-only harnesses are byte for byte what they were
// before entity-source harnesses existed (testdata/event-only-plans holds
// the output of `dispatch --output-driver json` on the examples then), and
// stay so when an entity-source harness is registered beside them.
func TestEventOnlyPlansUnchanged(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", ".fullsend")
	files := map[string]string{}
	for _, name := range []string{"triage.yaml", "label.yaml", "code.yaml"} {
		data, err := os.ReadFile(filepath.Join(examples, "harness", name))
		if err != nil {
			t.Fatal(err)
		}
		files["harness/"+name] = string(data)
	}
	cfg, err := os.ReadFile(filepath.Join(examples, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const entry = "agents:                        # harness registration, in order\n"
	if !strings.Contains(string(cfg), entry) {
		t.Fatal("examples/.fullsend/config.yaml changed its agents line")
	}
	files["config.yaml"] = strings.Replace(string(cfg), entry, entry+"  - name: reconcile\n    source: harness/reconcile.yaml\n", 1)
	files["harness/reconcile.yaml"] = "role: reconcile\nentity: {sources: [jira, github, gitlab]}\ntrigger: 'true'\nrun: {command: [./a.sh]}\n"
	withEntity := testfs.WriteTree(t, files)

	events := map[string]string{
		"triage-comment.json":          filepath.Join("..", "..", "examples", "events", "triage-comment.json"),
		"label-added.json":             filepath.Join("..", "..", "examples", "events", "label-added.json"),
		"outsider-comment.json":        filepath.Join("..", "..", "examples", "events", "outsider-comment.json"),
		"github-pr-comment.event.json": filepath.Join("..", "entity", "testdata", "github-pr-comment.event.json"),
	}
	for name, path := range events {
		want, err := os.ReadFile(filepath.Join("testdata", "event-only-plans", name))
		if err != nil {
			t.Fatal(err)
		}
		for dirName, dir := range map[string]string{"examples": examples, "with an entity harness": withEntity} {
			t.Run(name+" "+dirName, func(t *testing.T) {
				code, out, errs := runCLI(t, "", nil, "--config-dir", dir, "dispatch", "--input-driver", "json",
					"--input-file", path, "--output-driver", "json")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				if out != string(want) {
					t.Errorf("plan changed:\n got %s\nwant %s", out, want)
				}
			})
		}
	}
}
