package workflows

import (
	"reflect"
	"strings"
	"testing"
)

func TestUnexecedRuns(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   []int
	}{
		{"fullsend run", []int{0}},
		{"set -x\n./bin/fullsend run --harness x", []int{1}},
		{"exec fullsend run", nil},
		{"exec ./bin/fullsend run --harness \"$FULLSEND_AGENT\"", nil},
		{"fullsend run --refresh-only", nil},
		{"echo start; fullsend run", []int{0}},
		{"echo start; exec fullsend run", nil},
		{"if true; then exec sudo -n -E env \"PATH=$PATH\" fullsend run; fi", nil},
		{"sudo -E fullsend run", []int{0}},
		{"A=1 exec fullsend run", nil},
		{"A=1 fullsend run", []int{0}},
		{"# fullsend run in a comment\nexec fullsend run", nil},
		{"x=$(fullsend run)", []int{0}},
		{AgentScript(""), nil},
		{AgentScript(`--harness "$FULLSEND_AGENT"`), nil},
	} {
		if got := UnexecedRuns(tc.script); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("UnexecedRuns(%q) = %v, want %v", tc.script, got, tc.want)
		}
	}
}

// FuzzUnexecedRuns: workflow scripts are outside input; no script makes
// the check panic, every line it reports runs fullsend run, and a script
// whose every line is prefixed with exec is never reported.
func FuzzUnexecedRuns(f *testing.F) {
	for _, s := range []string{"fullsend run", "exec fullsend run", "a; fullsend run --x", "# fullsend run", AgentScript(""), "x=$(fullsend run", "\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		for _, i := range UnexecedRuns(s) {
			if i < 0 || i >= len(lines) || !fullsendRunCall.MatchString(lines[i]) {
				t.Fatalf("line %d of %q reported", i, s)
			}
		}
		if !strings.ContainsAny(s, "\n;&|$#") {
			if got := UnexecedRuns("exec " + s); len(got) != 0 {
				t.Fatalf("exec %q reported: %v", s, got)
			}
		}
	})
}
