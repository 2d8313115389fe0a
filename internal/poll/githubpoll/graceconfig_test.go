package githubpoll

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// TestConfiguredGrace: the entry's grace decides when a comment whose
// event was dropped is dispatched: on the first cycle with grace: 0s,
// only once the grace has passed (on GitHub's clock) otherwise; once.
func TestConfiguredGrace(t *testing.T) {
	cases := []struct {
		name  string
		extra string
		wait  time.Duration
	}{
		{"grace 0s", "grace: 0s", 0},
		{"grace 90s", "grace: 90s", 90 * time.Second},
		{"default", "", DefaultGrace},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			n := f.openIssue(t, false)
			yml := fmt.Sprintf("version: 1\nrepo: %s\nforge: github\npoll:\n  input_drivers:\n    - type: github-poll\n      connection:\n        base_url: %s\n", repo, f.base)
			if tc.extra != "" {
				yml += "      " + tc.extra + "\n"
			}
			c, err := config.Load(testfs.WriteTree(t, map[string]string{"config.yaml": yml}), func(string) string { return "" })
			must(t, err)
			in, err := build(c.Poll.InputDrivers[0], repo, ghadispatch.DefaultWorkflow, token, f.tr, poll.InputEnv{Now: f.clk.Now})
			must(t, err)
			if _, err := in.Account(context.Background()); err != nil { // as the controller does first
				t.Fatal(err)
			}
			cycle := func() int {
				t.Helper()
				res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: in.Driver, Core: f.core, Output: f.out,
					JitterMax: -1, Validate: (*event.Event).Validate})
				must(t, err)
				return res.Stats.DispatchesScheduled
			}
			f.comment(t, n, "/fs-triage")
			if tc.wait > 0 {
				if got := cycle(); got != 0 {
					t.Fatalf("first cycle dispatched %d runs, want 0 (within the grace)", got)
				}
				f.clk.Advance(tc.wait - time.Second)
				if got := cycle(); got != 0 {
					t.Fatalf("cycle 1s before the grace ends dispatched %d runs, want 0", got)
				}
				f.clk.Advance(time.Second)
			} else {
				f.settle() // the comment's second complete on GitHub's clock
			}
			if got := cycle(); got != 1 {
				t.Fatalf("cycle after %s dispatched %d runs, want 1", tc.wait, got)
			}
			if got := cycle(); got != 0 {
				t.Fatalf("next cycle dispatched %d runs, want 0", got)
			}
			f.checkOnce(t, 1)
		})
	}
}
