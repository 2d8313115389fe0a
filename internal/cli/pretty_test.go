package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestDispatchPrettyPlan(t *testing.T) {
	cfg := filepath.Join("..", "..", "examples", ".fullsend")
	ev := filepath.Join("..", "..", "examples", "events", "triage-comment.json")
	cases := []struct {
		flags     []string
		wantLines int // lines of the plan on stdout
	}{
		{nil, 1}, // a pipe or buffer: compact, as scripts expect
		{[]string{"--pretty=false"}, 1},
		{[]string{"--pretty"}, 13}, // [ { nine inputs } ]
	}
	for _, tc := range cases {
		args := append([]string{"--config-dir", cfg, "dispatch", "--input-file", ev}, tc.flags...)
		code, out, errs := runCLI(t, "", nil, args...)
		var plan []map[string]string
		if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || len(plan) != 1 {
			t.Fatalf("%v: exit %d, stdout %q, stderr %s", tc.flags, code, out, errs)
		}
		if n := strings.Count(out, "\n"); n != tc.wantLines {
			t.Errorf("%v: %d lines, want %d:\n%s", tc.flags, n, tc.wantLines, out)
		}
		// The dispatch contract: events stay JSON strings inside the inputs.
		if !strings.HasPrefix(plan[0]["normalized_event"], "{") || !strings.HasPrefix(plan[0]["event_payload"], "{") {
			t.Errorf("%v: plan entry %v", tc.flags, plan[0])
		}
	}
}

func TestIndentWriterPassesOtherOutputThrough(t *testing.T) {
	cases := []struct{ in, want string }{
		{`[{"a":"{\"x\":1}"}]` + "\n", "[\n  {\n    \"a\": \"{\\\"x\\\":1}\"\n  }\n]\n"},
		{"[]\n", "[]\n"},
		{"[triage PROJ-1 #1] agent output\n", "[triage PROJ-1 #1] agent output\n"},
		{`{"half":` + "\n", `{"half":` + "\n"},
	}
	for _, tc := range cases {
		var b bytes.Buffer
		n, err := indentWriter{&b}.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) || b.String() != tc.want {
			t.Errorf("Write(%q) = %d, %v, wrote %q; want %q", tc.in, n, err, b.String(), tc.want)
		}
	}
}
