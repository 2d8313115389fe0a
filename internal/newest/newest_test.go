package newest

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
)

const sk = "triage:acme/platform:github:work_item:7"

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// key is the idempotency key of the change made s seconds after t0 with
// change id id (0: none).
func key(s int, id int64) string {
	return changepos.Key(sk, changepos.Pos{At: t0.Add(time.Duration(s) * time.Second), ID: id})
}

// run is a waiting run of id created c seconds after t0.
func run(id int64, k string, c int) Run {
	return Run{ID: id, Key: k, Created: t0.Add(time.Duration(c) * time.Second), State: Waiting}
}

func started(r Run) Run { r.State = Started; return r }

func finished(r Run) Run { r.State = Finished; return r }

// cancelled marks r cancelled e seconds after t0.
func cancelled(r Run, e int) Run {
	r.State, r.Ended = Cancelled, t0.Add(time.Duration(e)*time.Second)
	return r
}

func TestChangeAndScope(t *testing.T) {
	cases := []struct {
		key   string
		ok    bool
		scope string
	}{
		{key(3, 0), true, sk},
		{key(3, 41), true, sk},
		{sk + "@sha256:abc", false, sk},
		{sk, false, sk},
		{sk + "@12x", false, sk},
	}
	for _, tc := range cases {
		if _, ok := Change(tc.key); ok != tc.ok {
			t.Errorf("Change(%q) ok = %v, want %v", tc.key, ok, tc.ok)
		}
		if got := Scope(tc.key); got != tc.scope {
			t.Errorf("Scope(%q) = %q, want %q", tc.key, got, tc.scope)
		}
	}
	if !Newer(key(3, 9), key(3, 5)) || Newer(key(3, 5), key(3, 9)) || Newer(sk+"@v", key(1, 0)) {
		t.Error("Newer does not order changes of one second by id")
	}
}

// TestSettle is the settle rule's table: the run kept is the newest
// change's (by the change's time, then its id), whoever dispatched last,
// and of one change the first started, else the first created.
func TestSettle(t *testing.T) {
	older, newer := key(5, 100), key(5, 200) // one second, told apart by id
	cases := []struct {
		name  string
		ours  Run
		runs  []Run
		since int
		want  Verdict
	}{
		{"alone", run(1, newer, 6), nil, 6, Verdict{Keep: true}},
		{"same second, newer id dispatched first: the older yields", run(2, older, 7),
			[]Run{run(1, newer, 6), run(2, older, 7)}, 7, Verdict{Over: 1}},
		{"same second, newer id dispatched last: kept", run(2, newer, 7),
			[]Run{run(1, older, 6), run(2, newer, 7)}, 7, Verdict{Keep: true}},
		{"newer change's run finished: covered", run(2, older, 9),
			[]Run{finished(run(1, newer, 6))}, 9, Verdict{Over: 1}},
		{"ours started: never cancelled for a newer change", started(run(2, older, 7)),
			[]Run{run(3, newer, 8)}, 7, Verdict{Keep: true}},
		{"duplicate of one change: the first created stays", run(3, newer, 8),
			[]Run{run(2, newer, 7)}, 8, Verdict{Over: 2}},
		{"duplicate: the started one stays", run(2, newer, 7),
			[]Run{started(run(3, newer, 8))}, 7, Verdict{Over: 3}},
		{"a cancelled duplicate never counts", run(3, newer, 8),
			[]Run{cancelled(run(2, newer, 7), 7)}, 8, Verdict{Keep: true}},
		{"ours queued after the newer pending run, which the platform cancelled: revive it", run(2, older, 8),
			[]Run{cancelled(run(1, newer, 7), 8), run(2, older, 8)}, 8, Verdict{Over: 1, Revive: 1}},
		{"ours started meanwhile: revive, keep ours", started(run(2, older, 8)),
			[]Run{cancelled(run(1, newer, 7), 8)}, 8, Verdict{Keep: true, Over: 1, Revive: 1}},
		{"cancelled before our write (a person): not revived", run(2, older, 9),
			[]Run{cancelled(run(1, newer, 7), 7)}, 9, Verdict{Keep: true}},
		{"ours a duplicate of a change that ran, queued after a newer pending run: revive that one", run(3, older, 8),
			[]Run{finished(run(1, older, 5)), cancelled(run(2, newer, 7), 8)}, 8, Verdict{Over: 2, Revive: 2}},
		{"ours a started duplicate: cancelled, and the dropped run revived", started(run(3, older, 8)),
			[]Run{finished(run(1, older, 5)), cancelled(run(2, newer, 7), 8)}, 8, Verdict{Over: 2, Revive: 2}},
		{"a live run of a change between ours and the dropped one: still revive it", run(3, key(3, 0), 8),
			[]Run{finished(run(1, older, 6)), cancelled(run(2, newer, 7), 8)}, 8, Verdict{Over: 2, Revive: 2}},
		{"a newer change live covers the cancelled one", run(2, older, 8),
			[]Run{cancelled(run(1, newer, 7), 8), run(3, key(6, 0), 8)}, 8, Verdict{Over: 3}},
		{"a platform that cancels nothing (zero since): never revived", run(2, older, 8),
			[]Run{cancelled(run(1, newer, 7), 8)}, -1, Verdict{Keep: true}},
		{"ours cancelled already", cancelled(run(2, older, 8), 8), []Run{run(1, newer, 7)}, 8, Verdict{}},
		{"scheduled retry after a finished attempt", run(2, sk+"@v1", 9),
			[]Run{finished(run(1, sk+"@v1", 5))}, 9, Verdict{Keep: true}},
		{"scheduled duplicate of a waiting attempt", run(3, sk+"@v1", 9),
			[]Run{run(2, sk+"@v1", 9)}, 9, Verdict{Over: 2}},
		{"a scheduled run is ordered against no change", run(2, older, 9),
			[]Run{run(1, sk+"@v1", 9)}, 9, Verdict{Keep: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			since := t0.Add(time.Duration(tc.since) * time.Second)
			if tc.since < 0 {
				since = time.Time{}
			}
			got := Settle(tc.ours, tc.runs, since)
			if got != tc.want {
				t.Fatalf("Settle = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDisplaced(t *testing.T) {
	older, newer := key(5, 100), key(5, 200)
	cases := []struct {
		name string
		runs []Run
		want int // displaced changes
	}{
		{"older queued after the newer: displaced", []Run{cancelled(run(1, newer, 6), 7), run(2, older, 7)}, 1},
		{"same second counts as after", []Run{cancelled(run(1, newer, 7), 7), finished(run(2, older, 7))}, 1},
		{"revived: live again", []Run{run(1, newer, 6), cancelled(run(2, older, 7), 8)}, 0},
		{"older queued before: a person's cancel", []Run{run(2, older, 5), cancelled(run(1, newer, 6), 9)}, 0},
		{"a newer change covers it", []Run{cancelled(run(1, newer, 6), 7), run(2, older, 7), run(3, key(9, 0), 9)}, 0},
	}
	for _, tc := range cases {
		if got := Displaced(tc.runs); len(got) != tc.want {
			t.Errorf("%s: Displaced = %v, want %d", tc.name, got, tc.want)
		}
	}
}
