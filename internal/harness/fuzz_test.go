package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// FuzzLoadHarnessFile writes arbitrary bytes as a harness file and loads
// it with its trigger: loading must never panic, and every problem —
// including CEL errors mapped back into the file — must carry a position
// inside the file.
func FuzzLoadHarnessFile(f *testing.F) {
	for _, name := range []string{"triage.yaml", "label.yaml", "code.yaml"} {
		b, err := os.ReadFile(filepath.Join(exampleDir, "harness", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"role: r\ntrigger: >-\n  event.a &&\n\n  event.b\n", "role: r\ntrigger: \"event.\\u00e9 == 1\"\n",
		"role: r\ntrigger: |\n  (\n", "role: r\ntrigger: event.entity.id\n", "trigger: 'x'\n",
		"role: r\nentity: {sources: [jira]}\ntrigger: |\n  entity.kind == 'x' &&\n  event.repo == 'a'\n",
		"role: r\nentity: {sources: [jira]}\noverlays:\n  - when: >-\n      entity.kind == 'x' &&\n\n      event.repo == 'a'\n    role: y\n",
		"role: r\noverlays: [{when: 'event.nope', role: y}, {when: '(', run: {timeout: 1m}}]\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "h.yaml")
	f.Fuzz(func(t *testing.T, src []byte) {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		h, probs := loadOne(config.Agent{Name: "a", Path: path, Line: 1, Col: 1}, trigger.Limits{}, config.DefaultMinRole)
		if h == nil && len(probs) == 0 {
			t.Fatal("no harness and no problems")
		}
		lines := strings.Count(string(src), "\n") + 1
		for _, p := range probs {
			if p.File != path || p.Line < 1 || p.Line > lines || p.Col < 1 || p.Msg == "" {
				t.Fatalf("problem outside the file (%d lines): %#v", lines, p)
			}
		}
	})
}
