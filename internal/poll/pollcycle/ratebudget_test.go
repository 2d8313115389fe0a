package pollcycle_test

import (
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
)

// The cycle record names the rate budget once the tracker reported one.
func TestLogAttrsRateBudget(t *testing.T) {
	reset := time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC)
	tests := []struct {
		name   string
		budget poll.RateBudget
		want   map[string]string
	}{
		{"none reported", poll.RateBudget{}, map[string]string{}},
		{"reported", poll.RateBudget{Known: true, Limit: 100, Remaining: 17, Reset: reset},
			map[string]string{"rate_limit_remaining": "17", "rate_limit_limit": "100", "rate_limit_reset": reset.String()}},
		{"no reset", poll.RateBudget{Known: true, Limit: 100, Remaining: 3},
			map[string]string{"rate_limit_remaining": "3", "rate_limit_limit": "100"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			for _, a := range (poll.CycleStats{RateBudget: tc.budget}).LogAttrs() {
				if strings.HasPrefix(a.Key, "rate_limit_") && a.Key != "rate_limit_waits" {
					got[a.Key] = a.Value.String()
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("attrs = %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}
