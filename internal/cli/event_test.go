package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validEventJSON = `{"repo":"acme/platform",
 "entity":{"kind":"work_item","id":10042,"key":"PROJ-123","url":"https://acme.atlassian.net/browse/PROJ-123"},
 "transition":{"kind":"comment_added","comment":{"command":"/fs-triage","body":"/fs-triage check acceptance criteria","instruction":"check acceptance criteria"}},
 "actor":{"id":"557058:abc123","kind":"human","role":"write","is_entity_author":false},
 "state":{"labels":["needs-info","bug"]},
 "source":{"system":"jira","raw_type":"comment","raw_action":"created"}}`

func TestEventValidateCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", validEventJSON)
	bad := write("bad.json", strings.Replace(strings.Replace(validEventJSON, `"write"`, `"boss"`, 1), `"acme/platform"`, `"acme/../x"`, 1))
	big := write("big.json", `{"repo":"`+strings.Repeat("a", 2<<20)+`"}`)

	tests := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		wantOut    string   // exact stdout
		wantErrHas []string // substrings of stderr
	}{
		{"valid file", []string{"event", "validate", good}, "", 0, good + ": valid\n", nil},
		{"valid stdin", []string{"event", "validate", "-"}, validEventJSON, 0, "<stdin>: valid\n", nil},
		{"invalid file", []string{"event", "validate", bad}, "", 2, "", []string{
			bad + `: /actor/role: must be one of`,
			bad + `: /repo: must not contain a ".." segment`,
			"fullsend: " + bad + ": invalid NormalizedEvent (2 problems)",
		}},
		{"invalid stdin", []string{"event", "validate", "-"}, "{", 2, "", []string{"<stdin>: invalid JSON", "(1 problem)"}},
		{"too large", []string{"event", "validate", big}, "", 2, "", []string{big + ": event is larger than 1 MiB"}},
		{"missing file", []string{"event", "validate", filepath.Join(dir, "nope.json")}, "", 2, "", []string{"event file " + filepath.Join(dir, "nope.json") + ": no such file"}},
		{"directory", []string{"event", "validate", dir}, "", 2, "", []string{"fullsend: event file " + dir + ": is a directory\n"}},
		{"no argument", []string{"event", "validate"}, "", 2, "", []string{"fullsend: event validate: want one FILE, or - for standard input (got 0 arguments)\n"}},
		{"two arguments", []string{"event", "validate", good, good}, "", 2, "", []string{"want one FILE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			app := &App{
				Stdin:  strings.NewReader(tc.stdin),
				Stdout: &stdout,
				Stderr: &stderr,
				Getenv: func(string) string { return "" },
			}
			code := Run(context.Background(), app, tc.args)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			if stdout.String() != tc.wantOut {
				t.Fatalf("stdout %q, want %q", stdout.String(), tc.wantOut)
			}
			for _, s := range tc.wantErrHas {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}
