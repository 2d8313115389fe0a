package gitlabpoll

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/poll/polltest"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// volumeWorld is gitlabsim with items issues or merge requests, each
// noted once with a command by a maintainer within the window, and a
// gitlab-poll input built as `fullsend poll` builds it (grace: 0s, the
// primary path), for polltest.Volume.
type volumeWorld struct {
	f   *fixture
	in  *Input
	out *gitlabpipeline.Driver
}

func newVolumeWorld(b testing.TB, items int, mrs bool, lat time.Duration) *volumeWorld {
	f := newFixture(b)
	tr := polltest.Latency(f.tr, lat)
	yml := fmt.Sprintf("version: 1\nrepo: %s\nforge: gitlab\npoll:\n  input_drivers:\n    - type: gitlab-poll\n      grace: 0s\n      connection:\n        base_url: %s\n", project, f.base)
	c, err := config.Load(testfs.WriteTree(b, map[string]string{"config.yaml": yml}), func(string) string { return "" })
	must(b, err)
	in, err := build(c.Poll.InputDrivers[0], project, project, f.sim.Token(), tr, poll.InputEnv{Now: f.clk.Now})
	must(b, err)
	out, err := gitlabpipeline.New(gitlabpipeline.Options{APIURL: f.base, Token: f.sim.Token(), Project: project, Ref: "main",
		Transport: tr})
	must(b, err)
	w := &volumeWorld{f: f, in: in, out: out}
	type subject struct {
		noteable string
		iid      int64
	}
	var subs []subject
	for i := range items {
		if mrs {
			m, _, err := f.sim.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceBranch: fmt.Sprintf("fix-%d", i),
				TargetBranch: "main", Title: "Fix", AuthorID: f.alice.ID})
			must(b, err)
			subs = append(subs, subject{gitlabsim.NoteableMergeRequest, m.IID})
			continue
		}
		is, _, err := f.sim.CreateIssue(project, f.alice.ID, "t", "d", nil)
		must(b, err)
		subs = append(subs, subject{gitlabsim.NoteableIssue, is.IID})
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	_, err = w.Cycle(context.Background()) // a warm poller: the window empty
	must(b, err)
	for _, s := range subs {
		f.clk.Advance(200 * time.Millisecond)
		_, _, err := f.sim.AddNote(project, s.noteable, s.iid, f.alice.ID, "/fs-triage")
		must(b, err)
	}
	f.settle()
	return w
}

func (w *volumeWorld) Cycle(ctx context.Context) (poll.CycleStats, error) {
	res, err := pollcycle.Run(ctx, pollcycle.Options{Driver: w.in.Driver, Output: w.out, Now: w.f.clk.Now, Validate: (*event.Event).Validate,
		Core: polltest.Commands{Harness: harness, Command: "/fs-triage", Forge: "gitlab"}, N: *polltest.VolumeN, Requests: *polltest.VolumeBudget})
	return res.Stats, err
}

func (w *volumeWorld) Requests() int { return w.f.sim.CallsTotal() }

// Points is every request: GitLab counts each against its limit.
func (w *volumeWorld) Points() int { return w.f.sim.CallsTotal() }

// BenchmarkVolume: forge.items (500) issues, then as many merge requests,
// each noted once with a command within the window, against one
// gitlab-poll poller at grace 0s dispatching through gitlab-pipeline:
// runs the first cycle dispatched, cycles until every item was
// dispatched, requests per item (the poller's, the pipelines' and the
// settles'), wall time (scripts/bench-poll.sh forge).
func BenchmarkVolume(b *testing.B) {
	for _, kind := range []struct {
		name string
		mrs  bool
	}{{"issues", false}, {"merge-requests", true}} {
		b.Run(kind.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				w := newVolumeWorld(b, *polltest.VolumeItems, kind.mrs, *polltest.VolumeLatency)
				b.StartTimer()
				polltest.Volume(b, w, *polltest.VolumeItems, *polltest.VolumeCycles).Report(b)
			}
		})
	}
}
