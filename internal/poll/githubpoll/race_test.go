package githubpoll

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestRace: 50 comments on 50 issues, two harnesses matching each; the
// event path delivers two thirds of them (in a shuffled order) while 3
// pollers run two cycles each, all at once against one emulator. Every
// comment ends with exactly one live run per harness, whatever the
// interleaving (the deliveries are shuffled, each poller picks its items
// in a random order; set FULLSEND_RACE_SEEDS=n for more rounds). Every
// settle reads all the runs of the window (~350, each the ~9 KB object
// GitHub sends), so the cost grows with the square of the comments.
func TestRace(t *testing.T) {
	seeds, _ := strconv.Atoi(os.Getenv("FULLSEND_RACE_SEEDS"))
	for seed := range uint64(max(seeds, 1)) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			// Every dispatcher here dispatches at once (no grace), so
			// each of ~350 settles reads all the runs: more than
			// GitHub's 5000 requests an hour.
			f, ctx := newFixtureLimit(t, 1_000_000), context.Background()
			f.core = harnesses{"triage", "review"}
			var ns []int
			for range 50 {
				n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "t", Author: "alice"})
				must(t, err)
				ns = append(ns, n)
			}
			f.clk.Advance(DefaultLookback + time.Hour)
			var hooks []githubsim.Delivery
			for i, n := range ns {
				d := f.comment(t, n, fmt.Sprint("/fs-triage ", i))
				if i%3 != 0 { // every third delivery is dropped
					hooks = append(hooks, d)
				}
			}
			f.settle()
			rand.New(rand.NewPCG(seed, 1)).Shuffle(len(hooks), func(i, j int) { hooks[i], hooks[j] = hooks[j], hooks[i] })
			var wg sync.WaitGroup
			errs := make(chan error, len(hooks)+6)
			wg.Go(func() {
				for _, h := range hooks {
					errs <- f.webhook(ctx, h)
				}
			})
			for range 3 {
				d := NewDriver(f.poller(t), nil)
				wg.Go(func() {
					for range 2 {
						_, err := f.run(ctx, d)
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				must(t, err)
			}
			f.checkOnce(t, 100)
			all := 0
			for _, n := range f.runs(true) {
				all += n
			}
			t.Logf("seed %d: 100 changes×harnesses, %d runs dispatched, %d cancelled as duplicates", seed, all, all-100)
		})
	}
}
