package workflows

import (
	"reflect"
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
