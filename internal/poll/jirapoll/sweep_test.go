package jirapoll_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// The sweep walks the queries' issues one page per discovery in issue id
// order and wraps around; a locked issue is left out; each swept item
// comes with its entity (built from the search) and its receipts, and is
// selected after every changed issue. Nothing is swept before the cycle
// enables it.
func TestSweepPagesAndWraps(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(5, seeded, "")
	locked := polllock.Lock{ID: "other.1", TS: e.siteNow(), Phase: polllock.PhaseRunning}
	e.sim.SetPropertyDirect(keys[1], lockKey(), locked.Marshal())
	rs := polllock.Receipts{}
	rs.Tried("triage", "v1:x", "l", e.siteNow())
	raw, _ := json.Marshal(rs)
	e.sim.SetPropertyDirect(keys[2], polllock.ReceiptsKey(repo), raw)
	changed := e.issue() // a change, no checkpoint: eligible, never swept
	p := e.poller(pollerOpts{m: 2})
	ctx := context.Background()
	swept := func() []string {
		t.Helper()
		disc, err := p.drv.Discover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range disc.Swept {
			if it.Entity == nil || it.Entity.Entity == nil || it.Entity.Entity.Key != it.ID || it.Receipts == nil {
				t.Fatalf("swept %s without its entity or receipts: %+v", it.ID, it)
			}
			for _, el := range disc.Eligible {
				if !el.Waiting.Before(it.Waiting) {
					t.Errorf("swept %s would be selected before the changed %s", it.ID, el.ID)
				}
			}
			if it.ID == keys[2] && it.Receipts["triage"].Tries == nil {
				t.Errorf("the receipts of %s were not read inline", it.ID)
			}
			out = append(out, it.ID)
		}
		return out
	}
	if got := swept(); len(got) != 0 {
		t.Fatalf("swept before it was enabled: %v", got)
	}
	p.drv.EnableSweep()
	var pages [][]string
	for range 5 {
		pages = append(pages, swept())
	}
	// keys[1] is locked; the changed issue is eligible instead; a full
	// last page is followed by an empty one, which wraps around.
	want := [][]string{{keys[0]}, {keys[2], keys[3]}, {keys[4]}, nil, {keys[0]}}
	for i := range want {
		if !slices.Equal(pages[i], want[i]) {
			t.Fatalf("pages %v, want %v (changed %s)", pages, want, changed)
		}
	}
}
