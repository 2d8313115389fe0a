package githubpoll

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
)

// TestUndisplace: a change whose run GitHub cancelled when an older
// change's run was queued after it (its dispatcher died before re-running
// it) is not handled: the scope's checkpoint moves below it, so the next
// cycle dispatches it again; a change cancelled otherwise stays handled.
func TestUndisplace(t *testing.T) {
	const tail = "acme/platform:github:work_item:7"
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	older, newer := changepos.Pos{At: t0, ID: 5}, changepos.Pos{At: t0, ID: 9}
	run := func(id int64, p changepos.Pos, created int, status, conclusion string) runInfo {
		at := t0.Add(time.Duration(created) * time.Second)
		return runInfo{id: id, suffix: changepos.ID(p), status: status, conclusion: conclusion, created: at, updated: at}
	}
	cases := []struct {
		name string
		runs []runInfo
		want changepos.Pos
	}{
		{"displaced by an older change's run queued after it",
			[]runInfo{run(1, newer, 1, statusCompleted, "cancelled"), run(2, older, 2, "pending", "")}, changepos.Pos{At: t0, ID: 8}},
		{"cancelled by a person before the older run", []runInfo{run(2, older, 1, statusCompleted, conclusionSuccess),
			run(1, newer, 2, statusCompleted, "cancelled")}, newer},
		{"re-run: live", []runInfo{run(1, newer, 1, "queued", ""), run(2, older, 2, statusCompleted, "cancelled")}, newer},
	}
	for _, tc := range cases {
		newestAt := map[string]changepos.Pos{tail: newer}
		undisplace(newestAt, map[string]map[string][]runInfo{tail: {"triage": tc.runs}})
		if newestAt[tail].Compare(tc.want) != 0 {
			t.Errorf("%s: checkpoint %v, want %v", tc.name, newestAt[tail], tc.want)
		}
	}
}
