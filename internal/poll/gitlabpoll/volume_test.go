package gitlabpoll

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/poll/polltest"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestEveryDueItemInOneCycle: gitlab-poll holds no lock, so a cycle
// decides every changed item before taking any and dispatches every
// command the API budget allows, whatever lock.n: notes that start
// nothing (an outsider's, a bot's, one with no command) take nothing
// from the commands, and more commanded items than lock.n all go out in
// the one cycle. Each actor's user is read once per cycle, whatever
// the number of items they commented on.
func TestEveryDueItemInOneCycle(t *testing.T) {
	for _, tc := range polltest.DueItemCases {
		t.Run(tc.Name, func(t *testing.T) {
			f, ctx := newFixture(t), context.Background()
			eve, bot := f.sim.AddUser("eve", false), f.sim.AddUser("renovate-bot", true)
			var iids []int64
			for range tc.Commands + 3 {
				is, _, err := f.sim.CreateIssue(project, f.alice.ID, "t", "d", nil)
				must(t, err)
				iids = append(iids, is.IID)
			}
			f.clk.Advance(DefaultLookback + time.Hour)
			in, out := f.configured(t, "grace: 0s"), f.output(t)
			cycle := func(n int) poll.CycleStats {
				t.Helper()
				res, err := pollcycle.Run(ctx, pollcycle.Options{Driver: in.Driver, Output: out, JitterMax: -1, Now: f.clk.Now,
					Validate: (*event.Event).Validate, N: n, Core: polltest.Commands{Harness: harness, Command: "/fs-triage", Forge: "gitlab"}})
				must(t, err)
				return res.Stats
			}
			cycle(0) // warm: nothing in the window
			if tc.Unrelated {
				// older than the commands: the longest-waiting
				for i, c := range []struct {
					who  int64
					body string
				}{{eve.ID, "/fs-triage"}, {bot.ID, "/fs-triage"}, {f.alice.ID, "thanks, looks good"}} {
					_, _, err := f.sim.AddNote(project, gitlabsim.NoteableIssue, iids[tc.Commands+i], c.who, c.body)
					must(t, err)
				}
			}
			for _, iid := range iids[:tc.Commands] {
				f.clk.Advance(time.Second)
				_, _, err := f.sim.AddNote(project, gitlabsim.NoteableIssue, iid, f.alice.ID, "/fs-triage")
				must(t, err)
			}
			f.settle()
			users := f.sim.Calls("get_user")
			st := cycle(tc.N)
			actors := 1 // alice
			if tc.Unrelated {
				actors += 2 // eve, the bot
			}
			if got := f.sim.Calls("get_user") - users; got != actors {
				t.Errorf("the cycle read %d users, want %d: one per actor", got, actors)
			}
			tc.Check(t, st)
			live := f.live()
			if len(live) != tc.Commands {
				t.Fatalf("pipelines per key %v, want the %d commands once each", live, tc.Commands)
			}
			for k, n := range live {
				if n != 1 {
					t.Errorf("key %s: %d live pipelines", k, n)
				}
			}
			if st := cycle(tc.N); st.Eligible != 0 || st.DispatchesScheduled != 0 {
				t.Fatalf("next cycle: %d eligible, %d dispatched; want every item handled", st.Eligible, st.DispatchesScheduled)
			}
		})
	}
}
