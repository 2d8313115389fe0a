package jirapoll_test

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// renaming is the Jira client with the key of one issue in every search
// answer replaced: a key the poller cannot handle, as a site could answer.
type renaming struct {
	*jira.Client
	from, to string
}

func (r renaming) Search(ctx context.Context, req jira.SearchRequest, limit int) ([]jira.Issue, error) {
	out, err := r.Client.Search(ctx, req, limit)
	for i := range out {
		if out[i].Key == r.from {
			out[i].Key = r.to
		}
	}
	return out, err
}

// Every key Jira accepts is handled: a one-letter project key (Jira Data
// Center) sits in the same batch as the others and every issue is
// dispatched; a key that still cannot be handled fails its item alone,
// never the batch.
func TestIssueKeysNeverFailTheBatch(t *testing.T) {
	tests := []struct {
		name     string
		rename   string // the PROJ issue whose key the site answers with "PROJ-01"
		wantRuns int
		failed   int
	}{
		{"one-letter project key", "", 3, 0},
		{"an unusable key", "PROJ-2", 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			e.sim.AddProject("A", "One letter")
			e.sim.SetRole("A", "Developers", alice)
			keys := []string{e.issue(), e.issue(), e.sim.AddIssue(jirasim.IssueSpec{Project: "A", Summary: "work", Reporter: alice})}
			for _, k := range keys {
				e.seed(k)
			}
			e.clock.Advance(3 * time.Millisecond)
			for _, k := range keys {
				e.sim.AddComment(k, alice, "please look")
			}
			if keys[2] != "A-1" {
				t.Fatalf("one-letter project issue is %s, want A-1", keys[2])
			}
			rec := &recorder{}
			p := e.poller(pollerOpts{out: rec, queries: []string{"project in (PROJ, A)"}})
			if tc.rename != "" {
				c := e.client()
				drv, err := jirapoll.New(jirapoll.Options{API: renaming{c, tc.rename, "PROJ-01"}, Usage: jirapoll.UsageOf(c), SiteURL: e.base,
					Repo: repo, Queries: []string{"project in (PROJ, A)"}, N: 5, StaleThreshold: time.Minute, PollerID: "poller-1", Now: e.clock.Now})
				if err != nil {
					t.Fatal(err)
				}
				p.o.Driver = drv
			}
			res, _ := p.cycle(context.Background())
			st := res.Stats
			if n := len(rec.all()); n != tc.wantRuns || st.ItemsFailed != tc.failed {
				t.Fatalf("runs %d, items failed %d (stats %+v); want %d and %d", n, st.ItemsFailed, st, tc.wantRuns, tc.failed)
			}
			for k, n := range rec.count() {
				if n != 1 {
					t.Errorf("%s dispatched %d times", k, n)
				}
			}
		})
	}
}
