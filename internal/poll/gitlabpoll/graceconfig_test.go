package gitlabpoll

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/testfs"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// configured builds the gitlab-poll input of a config.yaml whose entry
// ends with extra (such as "grace: 0s"), on the fixture's clock.
func (f *fixture) configured(t *testing.T, extra string) *Input {
	t.Helper()
	yml := fmt.Sprintf("version: 1\nrepo: %s\nforge: gitlab\npoll:\n  input_drivers:\n    - type: gitlab-poll\n      connection:\n        base_url: %s\n", project, f.base)
	if extra != "" {
		yml += "      " + extra + "\n"
	}
	c, err := config.Load(testfs.WriteTree(t, map[string]string{"config.yaml": yml}), func(string) string { return "" })
	must(t, err)
	in, err := build(c.Poll.InputDrivers[0], project, project, f.sim.Token(), f.tr, poll.InputEnv{Now: f.clk.Now})
	must(t, err)
	return in
}

// runCycle runs one poll cycle of in through out, working on up to 100
// items (every item of these tests).
func (f *fixture) runCycle(t *testing.T, in *Input, out output.Driver) (poll.CycleStats, error) {
	res, err := pollcycle.Run(context.Background(), pollcycle.Options{Driver: in.Driver, Core: commentCore{}, Output: out,
		JitterMax: -1, Now: f.clk.Now, Validate: (*event.Event).Validate, N: 100})
	if err != nil {
		return poll.CycleStats{}, err
	}
	return res.Stats, nil
}

func (f *fixture) output(t *testing.T) output.Driver {
	t.Helper()
	out, err := gitlabpipeline.New(gitlabpipeline.Options{APIURL: f.base, Token: f.sim.Token(), Project: project, Ref: "main",
		Transport: f.tr})
	must(t, err)
	return out
}

// TestConfiguredGrace: the entry's grace decides when a note whose
// webhook was dropped is dispatched: on the first cycle with grace: 0s,
// only once the grace has passed (on GitLab's clock) otherwise; once.
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
			m := f.openMR(t)
			in, out := f.configured(t, tc.extra), f.output(t)
			_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "webhook dropped")
			must(t, err)
			cycle := func() int {
				t.Helper()
				st, err := f.runCycle(t, in, out)
				must(t, err)
				return st.DispatchesScheduled
			}
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
				f.settle() // the note's second complete on GitLab's clock
			}
			if got := cycle(); got != 1 {
				t.Fatalf("cycle after %s dispatched %d runs, want 1", tc.wait, got)
			}
			if got := cycle(); got != 0 {
				t.Fatalf("next cycle dispatched %d runs, want 0", got)
			}
			if all := f.count(true); len(all) != 1 {
				t.Fatalf("pipelines per key %v, want one", all)
			}
		})
	}
}

// TestRacePrimaryPath: 30 notes (one per merge request, so no note's
// pipeline supersedes another's) are written while 3 pollers configured
// with grace: 0s cycle through the gitlab-pipeline output and the webhook
// path delivers two thirds of them as they are written: every note has
// exactly one live pipeline (a pipeline two paths created at once is
// settled away by gitlabpipeline.Settle), none lost, none doubled.
func TestRacePrimaryPath(t *testing.T) {
	const changes = 30
	f, ctx := newFixture(t), context.Background()
	var mrs []gitlabsim.MergeRequest
	for i := range changes {
		m, _, err := f.sim.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceBranch: fmt.Sprint("b", i),
			TargetBranch: "main", Title: "t", AuthorID: f.alice.ID})
		must(t, err)
		mrs = append(mrs, m)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	out := f.output(t)
	var ins []*Input
	for range 3 {
		ins = append(ins, f.configured(t, "grace: 0s"))
	}
	done := make(chan struct{})
	errs := make(chan error, 3*22+changes)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i, m := range mrs {
			f.clk.Advance(time.Second)
			_, body, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, fmt.Sprint("note ", i))
			if err == nil && i%3 != 0 { // every third webhook is dropped
				err = f.webhook(ctx, body)
			}
			errs <- err
		}
	})
	for _, in := range ins {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				if n < 20 {
					_, err := f.runCycle(t, in, out)
					errs <- err
				} else {
					<-done
				}
			}
		})
	}
	wg.Wait()
	f.settle() // the last note's second complete: the next cycle after it
	for _, in := range ins {
		_, err := f.runCycle(t, in, out)
		errs <- err
	}
	close(errs)
	for err := range errs {
		must(t, err)
	}
	live, dups := f.live(), 0
	for _, n := range live {
		dups += n - 1
	}
	created := 0
	for _, n := range f.count(true) {
		created += n
	}
	t.Logf("%d notes, 3 pollers with grace 0s and the webhook path: %d pipelines created, %d settled away", changes, created, created-len(live))
	if len(live) != changes || dups != 0 {
		t.Fatalf("%d of %d notes dispatched, %d duplicate live pipelines (created per key: %v)", len(live), changes, dups, f.count(true))
	}
}
