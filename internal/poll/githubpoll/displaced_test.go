package githubpoll

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// TestUndisplace: a change whose run GitHub cancelled when an older
// change's run was queued after it (its dispatcher died before re-running
// it) is not handled: the scope's checkpoint moves below it, so the next
// cycle dispatches it again; a change cancelled otherwise stays handled.
func TestUndisplace(t *testing.T) {
	const tail = "acme/platform:github:work_item:7"
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	older, newer := polllock.ChangePos{At: t0, ID: 5}, polllock.ChangePos{At: t0, ID: 9}
	run := func(id int64, p polllock.ChangePos, created int, status, conclusion string) runInfo {
		at := t0.Add(time.Duration(created) * time.Second)
		return runInfo{id: id, suffix: polllock.ChangeIDAt(p), status: status, conclusion: conclusion, created: at, updated: at}
	}
	cases := []struct {
		name string
		runs []runInfo
		want time.Time
	}{
		{"displaced by an older change's run queued after it",
			[]runInfo{run(1, newer, 1, statusCompleted, "cancelled"), run(2, older, 2, "pending", "")}, t0.Add(-time.Millisecond)},
		{"cancelled by a person before the older run", []runInfo{run(2, older, 1, statusCompleted, conclusionSuccess),
			run(1, newer, 2, statusCompleted, "cancelled")}, t0},
		{"re-run: live", []runInfo{run(1, newer, 1, "queued", ""), run(2, older, 2, statusCompleted, "cancelled")}, t0},
	}
	for _, tc := range cases {
		newestT := map[string]time.Time{tail: t0}
		undisplace(newestT, map[string]map[string][]runInfo{tail: {"triage": tc.runs}})
		if !newestT[tail].Equal(tc.want) {
			t.Errorf("%s: checkpoint %v, want %v", tc.name, newestT[tail], tc.want)
		}
	}
}
