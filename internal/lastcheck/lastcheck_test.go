package lastcheck

import (
	"slices"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

func TestParseLastCheck(t *testing.T) {
	lc, err := Parse([]byte(`"2026-01-01T00:00:00Z"`))
	if err != nil || lc.TS.Year() != 2026 {
		t.Fatalf("bare string: %+v %v", lc, err)
	}
	lc, err = Parse([]byte(`{"ts":"2026-01-01T00:00:00Z","harness":{"triage":"2026-01-02T00:00:00Z"}}`))
	if err != nil || lc.Harness["triage"].Day() != 2 {
		t.Fatalf("object: %+v %v", lc, err)
	}
	for _, raw := range []string{`"yesterday"`, `{}`, `12`, `{"ts":5}`} {
		if _, err := Parse([]byte(raw)); err == nil {
			t.Errorf("Parse(%s) accepted", raw)
		}
	}
}

// TestRunsOf: a lock's runs are the entries runs claimed; while an entry
// is a placeholder (or there is none), lastCheck's runs of the last
// dispatch under the lock's id fill in, never those of another lock.
func TestRunsOf(t *testing.T) {
	gha := func(id string) plan.Ref { return plan.Ref{Driver: "gha-dispatch", ID: id} }
	lc := LastCheck{Lock: "p1", Runs: []plan.Ref{gha("7"), gha("8")}}
	tests := []struct {
		name string
		lock polllock.Lock
		lc   LastCheck
		want []plan.Ref
	}{
		{"placeholders resolved through lastCheck", polllock.Lock{ID: "p1", Runs: polllock.Placeholders("gha-dispatch", 2)}, lc, []plan.Ref{gha("7"), gha("8")}},
		{"a claimed entry is kept once", polllock.Lock{ID: "p1", Runs: []plan.Ref{gha(""), gha("8")}}, lc, []plan.Ref{gha("8"), gha("7")}},
		{"no entries: lastCheck's", polllock.Lock{ID: "p1"}, lc, []plan.Ref{gha("7"), gha("8")}},
		{"all claimed: the lock's", polllock.Lock{ID: "p1", Runs: []plan.Ref{gha("9")}}, lc, []plan.Ref{gha("9")}},
		{"another lock's runs are not taken", polllock.Lock{ID: "p2", Runs: polllock.Placeholders("gha-dispatch", 1)}, lc, polllock.Placeholders("gha-dispatch", 1)},
		{"lastCheck without a lock id", polllock.Lock{ID: "p1"}, LastCheck{Runs: lc.Runs}, nil},
	}
	for _, tc := range tests {
		if got := tc.lc.RunsOf(tc.lock); !slices.Equal(got, tc.want) {
			t.Errorf("%s: RunsOf = %v, want %v", tc.name, got, tc.want)
		}
	}
}
