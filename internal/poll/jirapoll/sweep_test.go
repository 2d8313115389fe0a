package jirapoll_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// The sweep walks the queries' issues one page per discovery in creation
// order and starts again after the last page; a locked issue is left
// out; each swept item comes with its entity (built from the search) and
// its receipts, and is selected after every changed issue. Nothing is
// swept before the cycle enables it.
func TestSweepPagesAndWraps(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	keys := e.issues(5, seeded, "")
	locked := polllock.Lock{ID: "other.1", TS: e.siteNow(), Phase: polllock.PhaseRunning}
	e.sim.SetPropertyDirect(keys[1], lockKey(), locked.Marshal())
	rs := receipts.Receipts{}
	rs.Tried("triage", "v1:x", "l", e.siteNow())
	raw, _ := json.Marshal(rs)
	e.sim.SetPropertyDirect(keys[2], receipts.Key(repo), raw)
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
	// keys[1] is locked; the changed issue is eligible instead; the
	// last page (no next page token) is followed by the first.
	want := [][]string{{keys[0]}, {keys[2], keys[3]}, {keys[4]}, {keys[0]}, {keys[2], keys[3]}}
	for i := range want {
		if !slices.Equal(pages[i], want[i]) {
			t.Fatalf("pages %v, want %v (changed %s)", pages, want, changed)
		}
	}
}

// keyReadings are the emulator's readings of issue-key comparisons, the
// strictest (the default) first.
var keyReadings = []struct {
	name string
	k    jirasim.KeyComparison
}{{"per project", jirasim.KeysPerProject}, {"per project, empty", jirasim.KeysPerProjectEmpty}, {"numeric", jirasim.KeysNumeric},
	{"rejected", jirasim.KeysRejected}}

// TestSweepTwoProjectsEveryReading: under each reading of issue-key
// comparisons, the sweep of two queries over two projects whose issues
// interleave by id visits every issue of both, one page a discovery, and
// starts again after the last page; its first page carries no issue-key
// comparison, and neither does any page (the search's page token is the
// position), so no sweep search is refused.
func TestSweepTwoProjectsEveryReading(t *testing.T) {
	for _, r := range keyReadings {
		t.Run(r.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{KeyComparison: r.k})
			e.sim.AddProject("OPS", "Operations")
			var keys []string
			for i := range 7 {
				p := []string{project, "OPS"}[i%2]
				keys = append(keys, e.sim.AddIssue(jirasim.IssueSpec{Project: p, Summary: "work", Reporter: alice}))
				e.seed(keys[i])
			}
			e.clock.Advance(3 * time.Millisecond)
			p := e.poller(pollerOpts{m: 5, queries: []string{"project = " + project, "project = OPS ORDER BY key"}})
			p.drv.EnableSweep()
			e.sim.ResetCalls()
			var got []string
			for range 5 { // 2 pages, then again, then the first
				before := len(e.sim.SearchJQL())
				disc, err := p.drv.Discover(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range disc.Swept {
					got = append(got, it.ID)
				}
				jqls := e.sim.SearchJQL()[before:]
				sweep := jqls[len(jqls)-1]
				if strings.Contains(sweep, "id >") || strings.Contains(sweep, "key >") {
					t.Fatalf("a sweep search compares issue keys: %s", sweep)
				}
			}
			want := slices.Concat(keys, keys, keys[:5])
			if !slices.Equal(got, want) {
				t.Fatalf("swept %v, want %v", got, want)
			}
			if n := e.sim.Calls()[searchCall]; n != 15 {
				t.Fatalf("%d searches in 5 discoveries, want 15 (one page of each query, one sweep page)", n)
			}
		})
	}
}
