package config

import (
	"reflect"
	"testing"
	"time"
)

func TestParseHarnessDefaults(t *testing.T) {
	h, probs := ParseHarness("h.yaml", "triage", []byte("role: triage\n"))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := &HarnessFile{File: "h.yaml", Name: "triage", Role: "triage", Run: HarnessRun{Timeout: 30 * time.Minute, Env: []string{}}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("got %+v, want %+v", h, want)
	}
}

func TestParseHarnessFull(t *testing.T) {
	src := "name: triage\nrole: triage\ntrigger: 'true'\ndispatch: {workflow: run.yml}\nrun:\n  command: [./a.sh, -v]\n  timeout: 5m\n  env: [A_B, C]\n  user: agent\n  isolation: none\n"
	h, probs := ParseHarness("h.yaml", "triage", []byte(src))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if h.Trigger != "true" || h.TriggerLine != 3 || h.TriggerCol != 11 || h.Dispatch.Workflow != "run.yml" ||
		!reflect.DeepEqual(h.Run, HarnessRun{Command: []string{"./a.sh", "-v"}, Timeout: 5 * time.Minute, Env: []string{"A_B", "C"},
			User: "agent", Isolation: "none", CommandLine: 6, CommandCol: 13}) {
		t.Errorf("got %+v", h)
	}
}

func TestHarnessProblems(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []want
	}{
		{"missing role", "trigger: 'true'\n", []want{{"h.yaml", 1, 1, "role: required"}}},
		{"empty role", "role: ''\n", []want{{"h.yaml", 1, 7, "role: must not be empty"}}},
		{"name mismatch", "name: other\nrole: r\n", []want{{"h.yaml", 1, 7, `name: "other" does not match the agents entry name "agent"`}}},
		{"unknown key", "role: r\ntriger: 'true'\n", []want{{"h.yaml", 2, 1, `harness: unknown key "triger"`}}},
		{"trigger not string", "role: r\ntrigger: [a]\n", []want{{"h.yaml", 2, 10, "trigger: want a string holding a CEL expression, got a list"}}},
		{"trigger bool", "role: r\ntrigger: true\n", []want{{"h.yaml", 2, 10, "got a boolean"}}},
		{"bad timeout", "role: r\nrun: {timeout: 10}\n", []want{{"h.yaml", 2, 16, "run.timeout: want a duration"}}},
		{"zero timeout", "role: r\nrun: {timeout: 0s}\n", []want{{"h.yaml", 2, 16, "must be greater than 0"}}},
		{"empty command", "role: r\nrun: {command: []}\n", []want{{"h.yaml", 2, 16, "run.command: want a non-empty list"}}},
		{"command not list", "role: r\nrun: {command: ./a.sh}\n", []want{{"h.yaml", 2, 16, "want a list of strings, got a string"}}},
		{"bad env name", "role: r\nrun:\n  env: [OK, 'NOT OK']\n", []want{{"h.yaml", 3, 13, `run.env[1]: "NOT OK" is not a valid environment variable name`}}},
		{"unknown run key", "role: r\nrun: {cmd: [a]}\n", []want{{"h.yaml", 2, 7, `run: unknown key "cmd"`}}},
		{"root user", "role: r\nrun:\n  user: \"0:0\"\n", []want{{"h.yaml", 3, 9, "run.user: \"0:0\": the agent must not run as root"}}},
		{"bad user", "role: r\nrun:\n  user: 1001\n", []want{{"h.yaml", 3, 9, "run.user: want uid:gid for a numeric identity"}}},
		{"bad isolation", "role: r\nrun: {isolation: off}\n", []want{{"h.yaml", 2, 18, `run.isolation: want "user" or "none", got "off"`}}},
		{"bad workflow", "role: r\ndispatch: {workflow: a/b.yml}\n", []want{{"h.yaml", 2, 22, "want a file name"}}},
		{"malformed", "role: r\nrun: {\n", []want{{"h.yaml", 2, 1, "invalid YAML"}}},
		{"tab in trigger block", "role: r\ntrigger: |\n  event.repo == \"a\" &&\n\tevent.repo == \"b\"\n", []want{{"h.yaml", 4, 1, "tab character"}}},
		{"all at once", "name: x\nrun: {timeout: 1}\nfoo: 1\n", []want{
			{"h.yaml", 1, 1, "role: required"}, {"h.yaml", 1, 7, "does not match"},
			{"h.yaml", 2, 16, "run.timeout"}, {"h.yaml", 3, 1, `unknown key "foo"`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := ParseHarness("h.yaml", "agent", []byte(tc.src))
			checkProblems(t, probs, tc.want)
		})
	}
}

func TestReadHarnessFileMissing(t *testing.T) {
	h, probs := ReadHarnessFile("/nonexistent/h.yaml", "a")
	if h != nil {
		t.Errorf("HarnessFile = %+v, want nil", h)
	}
	checkProblems(t, probs, []want{{"h.yaml", 0, 0, "file not found (looked for /nonexistent/h.yaml)"}})
}

// TestTriggerPos maps positions inside the expression back to the file for
// every scalar style.
func TestTriggerPos(t *testing.T) {
	cases := []struct {
		name              string
		src               string
		startLine, startC int    // TriggerLine, TriggerCol
		at                [2]int // position inside the expression
		line, col         int    // expected file position
	}{
		{"plain", "role: r\ntrigger: event.a == 1\n", 2, 10, [2]int{1, 6}, 2, 15},
		{"single quoted", "role: r\ntrigger: 'event.a == \"x\"'\n", 2, 11, [2]int{1, 6}, 2, 16},
		{"double quoted", "role: r\ntrigger: \"event.a == 'x'\"\n", 2, 11, [2]int{1, 1}, 2, 11},
		{"literal line 2", "role: r\ntrigger: |\n  event.a == 1 &&\n    event.b == 2\n", 3, 3, [2]int{2, 8}, 4, 10},
		{"folded joins lines", "role: r\ntrigger: >-\n  event.a == 1 &&\n  event.b == 2\nrun: {}\n", 3, 3, [2]int{1, 22}, 4, 8},
		{"folded blank line", "role: r\ntrigger: >-\n  event.a == 1 &&\n\n  event.b == 2\n", 3, 3, [2]int{2, 6}, 5, 8},
		{"plain multi-line", "role: r\ntrigger: event.a == 1 &&\n  event.b == 2\n", 2, 10, [2]int{1, 22}, 3, 8},
		{"past the end clamps", "role: r\ntrigger: event.a\n", 2, 10, [2]int{1, 99}, 2, 17},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, probs := ParseHarness("h.yaml", "a", []byte(tc.src))
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			if h.TriggerLine != tc.startLine || h.TriggerCol != tc.startC {
				t.Errorf("trigger starts at %d:%d, want %d:%d", h.TriggerLine, h.TriggerCol, tc.startLine, tc.startC)
			}
			if l, c := h.TriggerPos(tc.at[0], tc.at[1]); l != tc.line || c != tc.col {
				t.Errorf("TriggerPos(%d:%d) = %d:%d, want %d:%d", tc.at[0], tc.at[1], l, c, tc.line, tc.col)
			}
		})
	}
}
