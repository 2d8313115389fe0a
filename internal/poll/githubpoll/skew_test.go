package githubpoll

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
)

// TestGraceOnGitHubsClock: with GitHub's clock an hour off the poller's
// host clock, the grace period and the window are still measured on
// GitHub's clock, read from its answers: a comment is left to the event
// path for the grace period, then dispatched once.
func TestGraceOnGitHubsClock(t *testing.T) {
	for _, skew := range []time.Duration{time.Hour, -time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			f := newFixture(t) // f.clk is GitHub's clock
			host := func() time.Time { return f.clk.Now().Add(-skew) }
			n := f.openIssue(t, false)
			in, err := build(config.InputDriver{Connection: config.Connection{BaseURL: f.base}, Grace: DefaultGrace}, repo, ghadispatch.DefaultWorkflow,
				token, f.tr, poll.InputEnv{Now: host})
			must(t, err)
			if _, err := in.Account(context.Background()); err != nil { // as the controller does first
				t.Fatal(err)
			}
			cycle := func() int {
				t.Helper()
				res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: in.Driver, Core: f.core, Output: f.out,
					JitterMax: -1, Validate: (*event.Event).Validate, N: 1000})
				must(t, err)
				return res.Stats.DispatchesScheduled
			}
			f.comment(t, n, "/fs-triage")
			if got := cycle(); got != 0 {
				t.Fatalf("comment within the grace period dispatched %d runs, want 0", got)
			}
			f.clk.Advance(DefaultGrace)
			if got := cycle(); got != 1 {
				t.Fatalf("comment after the grace period dispatched %d runs, want 1", got)
			}
			if got := cycle(); got != 0 {
				t.Fatalf("third cycle dispatched %d runs, want 0", got)
			}
			f.checkOnce(t, 1)
		})
	}
}
