package e2e_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/internal/steer/githubsteer"
)

// TestSteerCrashAtEachPoint stops the runner's steering at each point a
// follow-up passes (as a SIGKILL of the runner would: nothing after it
// happens, and the agent, in the runner's job, dies with it), then
// starts the pending run as the platform would. At every point the
// follow-up is either delivered and recorded (the pending run exits
// without its agent) or still pending (the pending run runs it), never
// both, never neither, and never recorded twice.
func TestSteerCrashAtEachPoint(t *testing.T) {
	tests := []struct {
		point    string
		recorded bool
	}{
		{steer.KillBeforeOffer, false}, {steer.KillAfterOffer, false}, {steer.KillBeforeRecord, false},
		{steer.KillAfterRecord, true}, {"", true},
	}
	for _, tt := range tests {
		t.Run("kill "+tt.point, func(t *testing.T) {
			ctx := context.Background()
			w := newSteerWorld(t, 1, "{enabled: true}")
			w.comment(t, "alice", "/fs-triage the importer drops rows")
			active := w.runs()[0].ID
			if err := w.gs.StartRun(active); err != nil {
				t.Fatal(err)
			}
			c2 := w.comment(t, "alice", "/fs-triage also handle the retries")
			c, err := github.NewClient(w.env["GITHUB_API_URL"], steerToken, github.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprintf("triage:%s:github:work_item:%d", steerRepo, w.issue)
			src, run := crashSource(t, w, c, key, active)
			box, err := steer.CreateMailbox(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sess := &steer.Session{Source: src, Mailbox: box, Limits: steer.Limits{Max: 2}, Ordered: true, Now: time.Now,
				Kill: func(p string) bool { return p == tt.point }}
			if sess.Tick(ctx) == nil {
				// the agent reads its mailbox, acknowledges and exits 0
				if err := os.WriteFile(box.AckPath, []byte(steer.IDOf(c2)+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				_, _ = sess.Finish(ctx, true)
			}
			recorded := w.replies(t, "triage", c2)
			if recorded > 1 {
				t.Fatalf("recorded %d times", recorded)
			}
			// The pending run starts: its start-up check.
			skip, err := githubsteer.Consumed(ctx, c, steerRepo, w.issue, "triage", c2, run.Own.At, "fullsend-bot")
			if err != nil {
				t.Fatal(err)
			}
			if (recorded == 1) != tt.recorded || skip != tt.recorded {
				t.Fatalf("recorded %d, pending run skipped %v; want delivered-and-recorded %v", recorded, skip, tt.recorded)
			}
			if !skip && len(w.runs()) != 2 {
				t.Fatal("not recorded, and no pending run carries the follow-up")
			}
		})
	}
}

// crashSource is the active run's source, deciding as the runner does.
func crashSource(t *testing.T, w *steerWorld, c *gogithub.Client, key string, active int64) (*githubsteer.Source, githubsteer.Run) {
	t.Helper()
	ctx := context.Background()
	run, err := githubsteer.ReadRun(ctx, c, steerRepo, key, active)
	if err != nil || !run.OK {
		t.Fatalf("ReadRun: %+v %v", run, err)
	}
	src, err := githubsteer.New(githubsteer.Options{Client: c, Repo: steerRepo, Number: w.issue, Harness: "triage", Scope: key,
		Own: run.Own, Workflow: run.Workflow, Since: run.Created, RunID: active, Decide: scopeDecider(t, w.dir, w.env, key)})
	if err != nil {
		t.Fatal(err)
	}
	return src, run
}

// scopeDecider decides a follow-up as the runner does (without an
// entity): it steers when the core starts a run of triage on scope key.
func scopeDecider(t *testing.T, dir string, env map[string]string, key string) func(context.Context, *event.Event) (bool, error) {
	t.Helper()
	cfg, reg, err := harness.LoadDir(dir, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	eng, err := core.New(core.Options{Config: cfg, Harnesses: reg, BotIDs: []string{"fullsend-bot"}})
	if err != nil {
		t.Fatal(err)
	}
	return func(_ context.Context, ev *event.Event) (bool, error) {
		for _, r := range eng.DecideWith(ev, nil).Runs {
			if r.Harness == "triage" && string(r.Key) == key {
				return true, nil
			}
		}
		return false, nil
	}
}
