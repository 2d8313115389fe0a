package cli

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/version"
)

// setVersion sets the -ldflags variables for one test and restores them.
func setVersion(t *testing.T, ver, commit, date string) {
	t.Helper()
	old := [3]string{version.Version, version.Commit, version.Date}
	version.Version, version.Commit, version.Date = ver, commit, date
	t.Cleanup(func() { version.Version, version.Commit, version.Date = old[0], old[1], old[2] })
}

func TestVersionCommand(t *testing.T) {
	setVersion(t, "v1.2.3", "0123abc", "2026-11-30T12:00:00Z")
	text := "fullsend v1.2.3\ncommit: 0123abc\ndate:   2026-11-30T12:00:00Z\ngo:     " + runtime.Version() + "\n"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		errHas string
	}{
		{name: "text", args: []string{"version"}, stdout: text},
		{name: "explicit text", args: []string{"version", "-o", "text"}, stdout: text},
		{name: "--version flag", args: []string{"--version"}, stdout: text},
		{name: "unknown format", args: []string{"version", "-o", "yaml"}, code: 2, errHas: `--output "yaml": want text or json`},
		{name: "extra argument", args: []string{"version", "now"}, code: 2, errHas: `version accepts no arguments (got "now")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errs)
			}
			if tc.code == 0 && out != tc.stdout {
				t.Errorf("stdout %q, want %q", out, tc.stdout)
			}
			if !strings.Contains(errs, tc.errHas) {
				t.Errorf("stderr %q lacks %q", errs, tc.errHas)
			}
		})
	}
}

func TestVersionJSON(t *testing.T) {
	setVersion(t, "v0.4.0-SNAPSHOT-0123abc", "0123abc", "2026-11-30T12:00:00Z")
	code, out, errs := runCLI(t, "", nil, "version", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	want := map[string]any{"version": "v0.4.0-SNAPSHOT-0123abc", "commit": "0123abc",
		"date": "2026-11-30T12:00:00Z", "go_version": runtime.Version()}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// A build without -ldflags or VCS stamping still says what it knows.
func TestVersionTextUnknowns(t *testing.T) {
	got := versionText(version.Info{Version: "(devel)", GoVersion: "go1.26.8", Modified: true})
	want := "fullsend (devel)\ncommit: unknown (modified)\ndate:   unknown\ngo:     go1.26.8\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
