package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadConfig feeds arbitrary bytes as config.yaml: parsing must never
// panic and must yield either a Config or positioned problems in the file.
func FuzzLoadConfig(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", ".fullsend", "config.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(example), "", "version: 1\n", "version: 1\nrepo: [\n", "- a\n", "version: 1\n---\nx: 1\n",
		"version: 1\nagents:\n  - {name: a, source: ../x}\n", "a: &x [*x]\n", "version: 1\nlimits: {runs_per_scope_per_hour: 99999999999}\n",
		"version: 1\npoll:\n  input_drivers:\n    - {type: jira-poll, queries: [q], lock: {m: 1, n: 2}}\n",
		"version: 1\npoll:\n  input_drivers:\n    - {type: gitlab-poll, grace: 0s}\n    - {type: github-poll, grace: -5m}\n",
		"version: 1\npoll:\n  input_drivers:\n    - {type: github-poll, requests_per_cycle: 1}\n    - {type: jira-poll, requests_per_cycle: x}\n",
		"version: 1\nauthorization: {scheduled_discovery: allow}\n", "version: 1\nauthorization: {scheduled_discovery: [allow]}\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		file := filepath.Join(dir, FileName)
		c, probs := parse(dir, file, src, nil)
		if c == nil {
			t.Fatal("parse returned no Config")
		}
		for _, p := range probs {
			if p.File != file || p.Line < 1 || p.Col < 1 || p.Msg == "" {
				t.Fatalf("problem without a position in the file: %#v", p)
			}
		}
	})
}

// FuzzParseHarness does the same for harness files, and checks that the
// trigger position mapping stays inside the file.
func FuzzParseHarness(f *testing.F) {
	for _, name := range []string{"triage.yaml", "label.yaml", "code.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", ".fullsend", "harness", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"", "role: r\n", "role: r\ntrigger: |\n\n  a\n\n", "trigger: >\n x\n  y\n\n z\n", "trigger: \"a\\tb\nc\"\n", "run: {timeout: -1s}\n",
		"role: r\nentity: {sources: [jira, jira, 1, [x]], min_role: x}\n", "role: r\nentity: {sources: []}\n",
		"role: r\nentity: {sources: [jira], every: 1h, retry: {max: 3, backoff: 1s}}\n", "role: r\nentity: {sources: [jira], every: 0s, retry: {max: 999, backoff: x}}\n",
		"role: r\noverlays:\n  - when: |\n      a &&\n      b\n    role: x\n    run: {command: [y], env: [A], timeout: 1m}\n  - ~\n  - {when: ''}\n",
		"role: r\noverlays: [{when: \"a\\tb\", dispatch: {workflow: w.yml}, report: {}}]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		h, probs := ParseHarness("h.yaml", "a", src)
		for _, p := range probs {
			if p.File != "h.yaml" || p.Line < 1 || p.Col < 1 || p.Msg == "" {
				t.Fatalf("problem without a position: %#v", p)
			}
		}
		if h == nil {
			if len(probs) == 0 {
				t.Fatal("no harness and no problems")
			}
			return
		}
		lines := len(splitLines(src))
		for i := range h.Overlays {
			for _, at := range [][2]int{{1, 1}, {2, 3}} {
				if l, c := h.Overlays[i].WhenPos(at[0], at[1]); l < 1 || l > lines || c < 1 {
					t.Fatalf("overlays[%d].WhenPos(%v) = %d:%d outside the file (%d lines)", i, at, l, c, lines)
				}
			}
		}
		if h.Trigger == "" {
			return
		}
		for _, at := range [][2]int{{1, 1}, {1, 5}, {2, 1}, {3, 7}} {
			l, c := h.TriggerPos(at[0], at[1])
			if l < 1 || l > lines || c < 1 {
				t.Fatalf("TriggerPos(%v) = %d:%d outside the file (%d lines)", at, l, c, lines)
			}
		}
	})
}

func splitLines(src []byte) []string {
	var out []string
	start := 0
	for i, b := range src {
		if b == '\n' {
			out = append(out, string(src[start:i]))
			start = i + 1
		}
	}
	return append(out, string(src[start:]))
}
