package harness

import (
	"reflect"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/strictyaml/strictyamltest"
)

func TestParseDefaults(t *testing.T) {
	h, probs := ParseFile("h.yaml", "triage", []byte("role: triage\n"))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := &File{File: "h.yaml", Name: "triage", Role: "triage", Revision: "sha256:07f52f2d13234c1b12d0fbb6464cdacfd783b07b707827563547fda3b1afbf09", Run: FileRun{Timeout: 30 * time.Minute, Env: []string{}},
		Report: DefaultReport(), Steer: DefaultSteer()}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("got %+v, want %+v", h, want)
	}
}

func TestParseFull(t *testing.T) {
	src := "name: triage\nrole: triage\ntrigger: 'true'\ndispatch: {workflow: run.yml}\nrun:\n  command: [./a.sh, -v]\n  timeout: 5m\n  env: [A_B, C]\n  user: agent\n  isolation: none\n"
	h, probs := ParseFile("h.yaml", "triage", []byte(src))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if h.Trigger != "true" || h.TriggerLine != 3 || h.TriggerCol != 11 || h.Dispatch.Workflow != "run.yml" ||
		!reflect.DeepEqual(h.Run, FileRun{Command: []string{"./a.sh", "-v"}, Timeout: 5 * time.Minute, Env: []string{"A_B", "C"},
			User: "agent", Isolation: "none", CommandLine: 6, CommandCol: 13}) {
		t.Errorf("got %+v", h)
	}
}

func TestProblems(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []strictyamltest.Want
	}{
		{"missing role", "trigger: 'true'\n", []strictyamltest.Want{{"h.yaml", 1, 1, "role: required"}}},
		{"empty role", "role: ''\n", []strictyamltest.Want{{"h.yaml", 1, 7, "role: must not be empty"}}},
		{"name mismatch", "name: other\nrole: r\n", []strictyamltest.Want{{"h.yaml", 1, 7, `name: "other" does not match the agents entry name "agent"`}}},
		{"unknown key", "role: r\ntriger: 'true'\n", []strictyamltest.Want{{"h.yaml", 2, 1, `harness: unknown key "triger"`}}},
		{"trigger not string", "role: r\ntrigger: [a]\n", []strictyamltest.Want{{"h.yaml", 2, 10, "trigger: want a string holding a CEL expression, got a list"}}},
		{"trigger bool", "role: r\ntrigger: true\n", []strictyamltest.Want{{"h.yaml", 2, 10, "got a boolean"}}},
		{"bad timeout", "role: r\nrun: {timeout: 10}\n", []strictyamltest.Want{{"h.yaml", 2, 16, "run.timeout: want a duration"}}},
		{"zero timeout", "role: r\nrun: {timeout: 0s}\n", []strictyamltest.Want{{"h.yaml", 2, 16, "must be greater than 0"}}},
		{"empty command", "role: r\nrun: {command: []}\n", []strictyamltest.Want{{"h.yaml", 2, 16, "run.command: want a non-empty list"}}},
		{"command not list", "role: r\nrun: {command: ./a.sh}\n", []strictyamltest.Want{{"h.yaml", 2, 16, "want a list of strings, got a string"}}},
		{"bad env name", "role: r\nrun:\n  env: [OK, 'NOT OK']\n", []strictyamltest.Want{{"h.yaml", 3, 13, `run.env[1]: "NOT OK" is not a valid environment variable name`}}},
		{"unknown run key", "role: r\nrun: {cmd: [a]}\n", []strictyamltest.Want{{"h.yaml", 2, 7, `run: unknown key "cmd"`}}},
		{"root user", "role: r\nrun:\n  user: \"0:0\"\n", []strictyamltest.Want{{"h.yaml", 3, 9, "run.user: \"0:0\": the agent must not run as root"}}},
		{"bad user", "role: r\nrun:\n  user: 1001\n", []strictyamltest.Want{{"h.yaml", 3, 9, "run.user: want uid:gid for a numeric identity"}}},
		{"bad isolation", "role: r\nrun: {isolation: off}\n", []strictyamltest.Want{{"h.yaml", 2, 18, `run.isolation: want "user" or "none", got "off"`}}},
		{"bad workflow", "role: r\ndispatch: {workflow: a/b.yml}\n", []strictyamltest.Want{{"h.yaml", 2, 22, "want a file name"}}},
		{"malformed", "role: r\nrun: {\n", []strictyamltest.Want{{"h.yaml", 2, 1, "invalid YAML"}}},
		{"tab in trigger block", "role: r\ntrigger: |\n  event.repo == \"a\" &&\n\tevent.repo == \"b\"\n", []strictyamltest.Want{{"h.yaml", 4, 1, "tab character"}}},
		{"all at once", "name: x\nrun: {timeout: 1}\nfoo: 1\n", []strictyamltest.Want{
			{"h.yaml", 1, 1, "role: required"}, {"h.yaml", 1, 7, "does not match"},
			{"h.yaml", 2, 16, "run.timeout"}, {"h.yaml", 3, 1, `unknown key "foo"`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := ParseFile("h.yaml", "agent", []byte(tc.src))
			strictyamltest.Check(t, probs, tc.want)
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	h, probs := ReadFile("/nonexistent/h.yaml", "a")
	if h != nil {
		t.Errorf("File = %+v, want nil", h)
	}
	strictyamltest.Check(t, probs, []strictyamltest.Want{{"h.yaml", 0, 0, "file not found (looked for /nonexistent/h.yaml)"}})
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
			h, probs := ParseFile("h.yaml", "a", []byte(tc.src))
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

func TestParseEntity(t *testing.T) {
	src := "role: r\ntrigger: 'true'\nentity:\n  sources: [jira, gitlab]\n  min_role: triage\n"
	h, probs := ParseFile("h.yaml", "agent", []byte(src))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := &FileEntity{Sources: []string{"jira", "gitlab"}, MinRole: "triage", Line: 4, Col: 3,
		Retry: FileRetry{Max: DefaultRetryMax, Backoff: DefaultRetryBackoff}}
	if !reflect.DeepEqual(h.Entity, want) {
		t.Errorf("got %+v, want %+v", h.Entity, want)
	}
	h, probs = ParseFile("h.yaml", "agent", []byte("role: r\nentity: {sources: [github]}\n"))
	if len(probs) > 0 || h.Entity == nil || h.Entity.MinRole != "" || !reflect.DeepEqual(h.Entity.Sources, []string{"github"}) {
		t.Errorf("got %+v %v", h.Entity, probs)
	}
	h, probs = ParseFile("h.yaml", "agent", []byte("role: r\nentity:\n  sources: [jira]\n  every: 1h\n  retry: {max: 0, backoff: 1s}\n"))
	if len(probs) > 0 || h.Entity.Every != time.Hour || h.Entity.Retry != (FileRetry{Max: 0, Backoff: time.Second}) {
		t.Errorf("every and retry: got %+v %v", h.Entity, probs)
	}
	h, probs = ParseFile("h.yaml", "agent", []byte("role: r\n"))
	if len(probs) > 0 || h.Entity != nil {
		t.Errorf("a harness without entity: got %+v %v", h.Entity, probs)
	}
}

func TestEntityProblems(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []strictyamltest.Want
	}{
		{"not a mapping", "role: r\nentity: [jira]\n", []strictyamltest.Want{{"h.yaml", 2, 9, "entity: want a mapping, got a list"}}},
		{"no sources", "role: r\nentity: {min_role: write}\n", []strictyamltest.Want{{"h.yaml", 2, 9, "entity.sources: required (a list of jira, github, gitlab)"}}},
		{"empty sources", "role: r\nentity: {sources: []}\n", []strictyamltest.Want{{"h.yaml", 2, 19, "entity.sources: want at least one of jira, github, gitlab"}}},
		{"unknown source", "role: r\nentity:\n  sources: [jira, bitbucket]\n", []strictyamltest.Want{{"h.yaml", 3, 19, `entity.sources[1]: "bitbucket" is not one of jira, github, gitlab`}}},
		{"repeated source", "role: r\nentity:\n  sources: [jira, jira]\n", []strictyamltest.Want{{"h.yaml", 3, 19, `entity.sources[1]: "jira" is listed twice`}}},
		{"sources not list", "role: r\nentity: {sources: jira}\n", []strictyamltest.Want{{"h.yaml", 2, 19, "entity.sources: want a list of strings, got a string"}}},
		{"bad role", "role: r\nentity:\n  sources: [jira]\n  min_role: developer\n", []strictyamltest.Want{{"h.yaml", 4, 13, `entity.min_role: "developer" is not one of admin, maintain, write, triage, read, none, external`}}},
		{"unknown key", "role: r\nentity:\n  sources: [jira]\n  roles: write\n", []strictyamltest.Want{{"h.yaml", 4, 3, `entity: unknown key "roles" (allowed: every, min_role, retry, sources)`}}},
		{"every too short", "role: r\nentity:\n  sources: [jira]\n  every: 10ms\n", []strictyamltest.Want{{"h.yaml", 4, 10, "entity.every: at least 1s, got 10ms"}}},
		{"every not a duration", "role: r\nentity:\n  sources: [jira]\n  every: hourly\n", []strictyamltest.Want{{"h.yaml", 4, 10, `entity.every: "hourly" is not a Go duration`}}},
		{"every zero", "role: r\nentity:\n  sources: [jira]\n  every: 0s\n", []strictyamltest.Want{{"h.yaml", 4, 10, "entity.every: must be greater than 0"}}},
		{"retry not a mapping", "role: r\nentity:\n  sources: [jira]\n  retry: 3\n", []strictyamltest.Want{{"h.yaml", 4, 10, "entity.retry: want a mapping"}}},
		{"retry unknown key", "role: r\nentity:\n  sources: [jira]\n  retry: {tries: 3}\n", []strictyamltest.Want{{"h.yaml", 4, 11, `entity.retry: unknown key "tries" (allowed: backoff, max)`}}},
		{"retry max negative", "role: r\nentity:\n  sources: [jira]\n  retry: {max: -1}\n", []strictyamltest.Want{{"h.yaml", 4, 16, "entity.retry.max: must be at least 0, got -1"}}},
		{"retry max too high", "role: r\nentity:\n  sources: [jira]\n  retry: {max: 1000}\n", []strictyamltest.Want{{"h.yaml", 4, 16, "entity.retry.max: at most 100, got 1000"}}},
		{"retry max text", "role: r\nentity:\n  sources: [jira]\n  retry: {max: many}\n", []strictyamltest.Want{{"h.yaml", 4, 16, "entity.retry.max: want an integer"}}},
		{"backoff too short", "role: r\nentity:\n  sources: [jira]\n  retry: {backoff: 500ms}\n", []strictyamltest.Want{{"h.yaml", 4, 20, "entity.retry.backoff: at least 1s, got 500ms"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := ParseFile("h.yaml", "agent", []byte(tc.src))
			strictyamltest.Check(t, probs, tc.want)
		})
	}
}
