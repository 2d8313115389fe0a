package gitlabpipeline

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// noteRun is the run of harness triage for note n of merge request 9
// made at (the webhook path and the pollers build the same key for it).
func noteRun(n int64, at time.Time) plan.Run {
	ev := &event.Event{
		Repo:       "acme/platform",
		Entity:     event.Entity{Kind: event.KindChangeProposal, ID: 9, URL: "https://gitlab.example.com/acme/platform/-/merge_requests/9"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: fmt.Sprintf("/fs-triage note %d", n)}},
		Actor:      event.Actor{ID: "7", Kind: event.ActorHuman, Role: "write"},
		State:      event.State{Labels: []string{}},
		Source:     event.Source{System: event.SystemGitLab, RawType: "Note Hook"},
	}
	r := plan.Run{Harness: "triage", Role: "triage", Event: ev, Key: scope.KeyOf("triage", ev, "gitlab"), WorkItem: plan.WorkItemOf(ev)}
	r.WorkItem.IdempotencyKey = changepos.Key(string(r.Key), changepos.Pos{At: at, ID: n})
	return r
}

// TestWebhookAndPollersRace: the webhook path and three gitlab-poll
// pollers dispatch the notes of one merge request, each from what it
// read (a poller that read before the newest note dispatches an older
// one, after the webhook path dispatched the newest), while a run of the
// scope holds its resource group. Whatever the order, exactly one
// pipeline of the scope waits, and it carries the newest note; notes of
// one second are told apart by their ids.
func TestWebhookAndPollersRace(t *testing.T) {
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	notes := []plan.Run{noteRun(101, at), noteRun(102, at), noteRun(103, at)} // one second
	n1, n2, n3 := notes[0], notes[1], notes[2]
	orders := []struct {
		name string
		runs []plan.Run // webhook, poller 1, poller 2, poller 3 (dispatched in this order)
	}{
		{"newest first, then an older, a duplicate and another older", []plan.Run{n3, n1, n3, n2}},
		{"oldest first", []plan.Run{n1, n2, n3, n3}},
		{"newest last", []plan.Run{n2, n1, n2, n3}},
		{"duplicates of the newest around an older", []plan.Run{n3, n3, n1, n3}},
	}
	for _, tc := range orders {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, gitlabsim.Options{})
			ds := []*Driver{e.driver(t), e.driver(t), e.driver(t), e.driver(t)}
			holder := dispatch1(t, ds[0], noteRun(100, at.Add(-time.Minute)))
			for i, r := range tc.runs {
				dispatch1(t, ds[i], r)
			}
			checkNewestWaits(t, e, n3, holder)
		})
	}
	t.Run("concurrently", func(t *testing.T) {
		e := newEnv(t, gitlabsim.Options{})
		holder := dispatch1(t, e.driver(t), noteRun(100, at.Add(-time.Minute)))
		var wg sync.WaitGroup
		for i, r := range []plan.Run{n3, n1, n2, n3, n1, n2} {
			d := e.driver(t)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res := d.Dispatch(context.Background(), []plan.Run{r}); res[0].Err != nil {
					t.Errorf("dispatcher %d: %v", i, res[0].Err)
				}
			}()
		}
		wg.Wait()
		checkNewestWaits(t, e, n3, holder)
	})
}

// checkNewestWaits: pipeline holder still holds the scope's resource, and
// exactly one pipeline waits, carrying newest's key.
func checkNewestWaits(t *testing.T, e *env, newest plan.Run, holder int64) {
	t.Helper()
	rk := glapi.ResourceKey(newest.Key)
	if p, _ := e.sim.Pipeline(holder); p.Status != gitlabsim.StatusPending {
		t.Errorf("the active pipeline %d is %s, want pending (never cancelled)", holder, p.Status)
	}
	w := e.sim.Waiting(testProject, glapi.GroupKey(rk))
	var keys []string
	for _, p := range w {
		keys = append(keys, p.Variables[glapi.VarIdempotencyKey])
	}
	if len(w) != 1 || keys[0] != newest.WorkItem.IdempotencyKey {
		t.Fatalf("waiting pipelines carry %q; want exactly one, carrying the newest note %s", keys, newest.WorkItem.IdempotencyKey)
	}
}

// TestSupersededByChange: at its start, the agent job of a pipeline
// exits only for a live pipeline of a newer change (or an earlier one of
// its own change), not for a later pipeline of an older change, which its
// own dispatcher cancels.
func TestSupersededByChange(t *testing.T) {
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	older, newer := noteRun(101, at), noteRun(102, at)
	rk := glapi.ResourceKey(newer.Key)
	create := func(r plan.Run) int64 { return createUnsettled(t, e, r) }
	pn := create(newer)
	po := create(older)
	dup := create(newer)
	cases := []struct {
		name string
		id   int64
		run  plan.Run
		want int64
	}{
		{"the newer change, an older one created after it", pn, newer, 0},
		{"the older change", po, older, pn},
		{"a duplicate of the newer change", dup, newer, pn},
		{"without a key: any later pipeline", pn, plan.Run{}, dup},
	}
	for _, tc := range cases {
		got, err := d.Superseded(context.Background(), rk, tc.id, tc.run.WorkItem.IdempotencyKey)
		if err != nil || got != tc.want {
			t.Errorf("%s: Superseded = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
}
