package githubpoll

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/poll/polltest"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// volumeWorld is githubsim with items issues or pull requests, each
// commented once with a command by a maintainer within the window, and a
// github-poll input built as `fullsend poll` builds it (grace: 0s, the
// primary path), for polltest.Volume.
type volumeWorld struct {
	f   *fixture
	in  *Input
	out *ghadispatch.Driver
}

func newVolumeWorld(b testing.TB, items int, pulls bool, lat time.Duration) *volumeWorld {
	f := newFixture(b)
	tr := polltest.Latency(f.tr, lat)
	yml := fmt.Sprintf("version: 1\nrepo: %s\nforge: github\npoll:\n  input_drivers:\n    - type: github-poll\n      grace: 0s\n      connection:\n        base_url: %s\n", repo, f.base)
	c, err := config.Load(testfs.WriteTree(b, map[string]string{"config.yaml": yml}), func(string) string { return "" })
	must(b, err)
	in, err := build(c.Poll.InputDrivers[0], repo, ghadispatch.DefaultWorkflow, token, tr, poll.InputEnv{Now: f.clk.Now})
	must(b, err)
	_, err = in.Account(context.Background())
	must(b, err)
	out, err := ghadispatch.New(ghadispatch.Options{APIURL: f.base, Token: token, Repo: repo, Ref: "main",
		HTTPClient: &http.Client{Transport: tr}, Timeout: 30 * time.Second, Sleep: f.clk.Sleep})
	must(b, err)
	w := &volumeWorld{f: f, in: in, out: out}
	var ns []int
	for range items {
		n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "t", Body: "b", Author: "alice", PullRequest: pulls})
		must(b, err)
		ns = append(ns, n)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	_, err = w.Cycle(context.Background()) // a warm poller: the window empty
	must(b, err)
	for _, n := range ns {
		f.clk.Advance(200 * time.Millisecond)
		_, _, err := f.sim.AddComment(repo, n, "mara", "/fs-triage")
		must(b, err)
	}
	f.settle()
	return w
}

func (w *volumeWorld) Cycle(ctx context.Context) (poll.CycleStats, error) {
	res, err := pollcycle.Run(ctx, pollcycle.Options{Driver: w.in.Driver, Output: w.out, Now: w.f.clk.Now, Validate: (*event.Event).Validate,
		Core: polltest.Commands{Harness: "triage", Command: "/fs-triage", Forge: "github"}, N: *polltest.VolumeN, Requests: *polltest.VolumeBudget})
	return res.Stats, err
}

func (w *volumeWorld) Requests() int { return w.f.sim.Requests() }
func (w *volumeWorld) Points() int   { return w.f.sim.RatePointsUsed() }

// BenchmarkVolume: forge.items (500) issues, then as many pull requests,
// each commented once with a command within the window, against one
// github-poll poller at grace 0s dispatching through gha-dispatch: runs
// the first cycle dispatched, cycles until every item was dispatched,
// requests and rate-limit points per item (the poller's, the dispatches'
// and the settles'), wall time (scripts/bench-poll.sh forge).
func BenchmarkVolume(b *testing.B) {
	for _, kind := range []struct {
		name  string
		pulls bool
	}{{"issues", false}, {"pull-requests", true}} {
		b.Run(kind.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				w := newVolumeWorld(b, *polltest.VolumeItems, kind.pulls, *polltest.VolumeLatency)
				b.StartTimer()
				polltest.Volume(b, w, *polltest.VolumeItems, *polltest.VolumeCycles).Report(b)
			}
		})
	}
}
