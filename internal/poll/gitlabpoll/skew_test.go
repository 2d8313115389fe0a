package gitlabpoll

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestGraceOnGitLabsClock: with GitLab's clock an hour off the poller's
// host clock, the grace period is measured on GitLab's clock, read from
// its answers: a change is deferred for the grace period, then dispatched
// once.
func TestGraceOnGitLabsClock(t *testing.T) {
	for _, skew := range []time.Duration{time.Hour, -time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			f, ctx := newFixture(t), context.Background() // f.clk is GitLab's clock
			host := func() time.Time { return f.clk.Now().Add(-skew) }
			m := f.openMR(t)
			_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "late webhook")
			must(t, err)
			in, err := build(config.InputDriver{Connection: config.Connection{BaseURL: f.base}, Grace: DefaultGrace}, project, project,
				f.sim.Token(), f.tr, poll.InputEnv{Now: host})
			must(t, err)
			// The controller reads the account first; the emulator has no
			// /user, but its 404 carries GitLab's Date like any answer.
			_, _ = in.Account(ctx)
			p := in.Driver.p
			p.o.Dispatch = f.disp
			st, err := p.Cycle(ctx)
			must(t, err)
			if st.Deferred != 1 || st.Dispatched != 0 {
				t.Fatalf("young change: %+v, want it deferred", st)
			}
			f.clk.Advance(DefaultGrace + time.Second)
			st, err = p.Cycle(ctx)
			must(t, err)
			if st.Dispatched != 1 || st.Deferred != 0 {
				t.Fatalf("after the grace: %+v, want it dispatched", st)
			}
		})
	}
}
