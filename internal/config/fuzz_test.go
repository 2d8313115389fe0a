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
