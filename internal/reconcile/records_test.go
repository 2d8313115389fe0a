package reconcile

import (
	"strconv"
	"testing"
	"time"
)

// TestRecordOf: of the attempts of a scope, a success of the version is
// the receipt, the others ended are its tries (backoff from the last
// end), one not ended makes the scope active, and without a success of
// the version the newest success of another version is the receipt.
func TestRecordOf(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ref := func(id int64) string { return "x/" + strconv.FormatInt(id, 10) }
	cases := []struct {
		name        string
		as          []Attempt
		wantSuccess string // the receipt's version ("": none)
		wantRun     string
		wantTries   int
		wantActive  bool
	}{
		{"none", nil, "", "", 0, false},
		{"one running", []Attempt{{ID: 1, Suffix: "v2"}}, "", "", 0, true},
		{"failed twice", []Attempt{{ID: 1, Suffix: "v2", Done: true, At: t0}, {ID: 2, Suffix: "v2", Done: true, At: t0.Add(time.Minute)}}, "", "", 2, false},
		{"failed then succeeded", []Attempt{{ID: 1, Suffix: "v2", Done: true, At: t0}, {ID: 2, Suffix: "v2", Done: true, Succeeded: true, At: t0.Add(time.Minute)}}, "v2", "x/2", 0, false},
		{"older version's success, a change's ignored", []Attempt{{ID: 1, Suffix: "v1", Done: true, Succeeded: true, At: t0},
			{ID: 2, Suffix: "1764504000000", Done: true, Succeeded: true, At: t0.Add(time.Hour)}}, "v1", "x/1", 0, false},
		{"duplicate listing counted once", []Attempt{{ID: 1, Suffix: "v2", Done: true, At: t0}, {ID: 1, Suffix: "v2", Done: true, At: t0}}, "", "", 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, active := RecordOf("v2", tc.as, false, ref)
			if active != tc.wantActive {
				t.Errorf("active = %v, want %v", active, tc.wantActive)
			}
			switch {
			case tc.wantSuccess == "" && rec.Success != nil:
				t.Errorf("receipt %+v, want none", rec.Success)
			case tc.wantSuccess != "" && (rec.Success == nil || rec.Success.Version != tc.wantSuccess || rec.Success.Run != tc.wantRun):
				t.Errorf("receipt %+v, want version %s run %s", rec.Success, tc.wantSuccess, tc.wantRun)
			}
			got := 0
			if rec.Tries != nil {
				got = rec.Tries.Count
				if !rec.Tries.At.Equal(t0.Add(time.Duration(got-1) * time.Minute)) {
					t.Errorf("tries at %s, want the last end", rec.Tries.At)
				}
			}
			if got != tc.wantTries {
				t.Errorf("tries = %d, want %d", got, tc.wantTries)
			}
		})
	}
}
