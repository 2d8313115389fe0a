package newest

import (
	"testing"
	"time"
)

type yieldCase struct {
	name string
	ours Run
	runs []Run
	a    Attempt
	want int64 // the run ours yields to; 0: ours starts
}

// TestYields is the start rule's table: a run about to start its agent
// (ours, running: its scope's runs start one at a time) yields to a run
// of its change that started before it, to a live run that carries a
// newer change, and to a newer change's run the platform dropped for it;
// never to a waiting run of its own change, an older change or a run
// cancelled before it was queued.
func TestYields(t *testing.T) {
	k, older, newer := key(5, 100), key(4, 0), key(5, 200)
	version := sk + "@v1:sha256:abc" // a scheduled run's key: no change
	ours := started(run(2, k, 7))
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cases := []yieldCase{
		{"alone", ours, []Run{ours}, Attempt{Since: at(7)}, 0},
		{"listed waiting: ours is running whatever the list says", run(2, k, 7), []Run{run(1, k, 6)}, Attempt{}, 0},
		{"its change ran already (created before ours)", ours, []Run{finished(run(1, k, 6))}, Attempt{}, 1},
		{"its change ran already (created after ours, started first)", ours, []Run{finished(run(3, k, 8))}, Attempt{}, 3},
		{"its change is running, created first", ours, []Run{started(run(1, k, 6))}, Attempt{}, 1},
		{"its change is running, created after ours: ours first", ours, []Run{started(run(3, k, 8))}, Attempt{}, 0},
		{"a waiting run of its change, created first: it waits behind ours", ours, []Run{run(1, k, 6)}, Attempt{}, 0},
		{"a cancelled run of its change", ours, []Run{cancelled(run(1, k, 6), 6)}, Attempt{}, 0},
		{"a re-run: its change's earlier finished attempt is no duplicate", ours, []Run{finished(run(1, k, 6))}, Attempt{Retry: true}, 0},
		{"a re-run: its change running elsewhere, created first", ours, []Run{started(run(1, k, 6))}, Attempt{Retry: true}, 1},
		{"a newer change waits behind ours: it covers ours", ours, []Run{run(3, newer, 8)}, Attempt{}, 3},
		{"a newer change's run finished", ours, []Run{finished(run(1, newer, 6))}, Attempt{}, 1},
		{"a newer change's run created before ours: by change, not creation", ours, []Run{run(1, newer, 5)}, Attempt{}, 1},
		{"an older change's runs", ours, []Run{finished(run(1, older, 5)), run(3, older, 8)}, Attempt{Since: at(7)}, 0},
		{"a newer change dropped for ours: its dispatcher re-runs it", ours, []Run{cancelled(run(1, newer, 6), 7)}, Attempt{Since: at(7)}, 1},
		{"a newer change cancelled before ours was queued", ours, []Run{cancelled(run(1, newer, 5), 6)}, Attempt{Since: at(7)}, 0},
		{"a dropped change covered by a live newer one: that one", ours,
			[]Run{cancelled(run(1, newer, 6), 7), run(3, key(6, 0), 8)}, Attempt{Since: at(7)}, 3},
		{"no platform cancels (GitLab): nothing counts as dropped", ours, []Run{cancelled(run(1, newer, 6), 7)}, Attempt{}, 0},
		{"a re-run: nothing counts as dropped", ours, []Run{cancelled(run(1, newer, 6), 7)}, Attempt{Retry: true}, 0},
		{"a key without a change: its finished attempts are earlier ones", started(run(2, version, 7)),
			[]Run{finished(run(1, version, 6))}, Attempt{Since: at(7)}, 0},
		{"a key without a change: its attempt running, created first", started(run(2, version, 7)),
			[]Run{started(run(1, version, 6))}, Attempt{}, 1},
		{"a key without a change: a run created after it", started(run(2, version, 7)),
			[]Run{run(3, newer, 8)}, Attempt{}, 3},
		{"a key without a change: a run created before it", started(run(2, version, 7)),
			[]Run{finished(run(1, newer, 6))}, Attempt{}, 0},
	}
	gl := func(r Run, seq int64) Run { r.Seq = seq; return r } // a GitLab pipeline, id seq
	glOurs := gl(run(2, k, 7), 11)
	cases = append(cases, []yieldCase{
		{"GitLab: a newer change, created earlier", gl(run(2, older, 7), 11), []Run{gl(run(1, k, 6), 10)}, Attempt{}, 1},
		{"GitLab: an older change, created later", glOurs, []Run{gl(run(3, older, 8), 12)}, Attempt{}, 0},
		{"GitLab: a cancelled newer change", gl(run(2, older, 7), 11), []Run{cancelled(gl(run(1, k, 6), 10), 7)}, Attempt{}, 0},
		{"GitLab: no keys read, created later", gl(run(1, "", 6), 10), []Run{gl(run(2, "", 7), 11)}, Attempt{}, 2},
		{"GitLab: its change waits, created first: the first created runs", glOurs, []Run{gl(run(1, k, 6), 10)}, Attempt{}, 1},
		{"GitLab: its change created later ran its check and exited: ours runs", glOurs, []Run{finished(gl(run(3, k, 8), 12))}, Attempt{}, 0},
		{"GitLab: its change created later waits", glOurs, []Run{gl(run(3, k, 8), 12)}, Attempt{}, 0},
		{"GitLab: its change created first finished", glOurs, []Run{finished(gl(run(1, k, 6), 10))}, Attempt{}, 1},
		{"GitLab: the newest of several", gl(run(1, older, 5), 9),
			[]Run{gl(run(2, k, 6), 10), gl(run(3, newer, 6), 8)}, Attempt{}, 3},
	}...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Yields(tc.ours, tc.runs, tc.a)
			if ok != (tc.want != 0) || got.ID != tc.want {
				t.Fatalf("Yields = run %d, %v; want run %d", got.ID, ok, tc.want)
			}
		})
	}
}
