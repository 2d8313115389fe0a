package gitlabpoll

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// openMR opens a merge request by alice and moves the clock past the
// lookback window, so that only what follows is within it.
func (f *fixture) openMR(t *testing.T) gitlabsim.MergeRequest {
	t.Helper()
	m, _, err := f.sim.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceBranch: "fix", TargetBranch: "main",
		Title: "Fix", AuthorID: f.alice.ID})
	must(t, err)
	f.clk.Advance(DefaultLookback + time.Hour)
	return m
}

// TestWebhookThenPoll: a note dispatched by the gitlab-event path is
// recognised by the poller (nothing new), and both paths build the same
// event for it.
func TestWebhookThenPoll(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	m := f.openMR(t)
	n, hook, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "/fs-review please")
	must(t, err)
	must(t, f.webhook(ctx, hook))
	webhookEv := f.disp.events
	if len(webhookEv) != 1 {
		t.Fatalf("webhook dispatched %d keys, want 1", len(webhookEv))
	}
	f.settle()
	st, err := f.poller(t).Cycle(ctx)
	must(t, err)
	if st.Dispatched != 0 || st.Known != 1 {
		t.Fatalf("poll after webhook: %+v, want 0 dispatched and 1 known", st)
	}
	for key, n := range f.live() {
		if n != 1 {
			t.Errorf("key %s: %d pipelines, want 1", key, n)
		}
	}
	// The poller's own event for the note equals the webhook's.
	g := newFixture(t)
	gm := g.openMR(t)
	gn, _, err := g.sim.AddNote(project, gitlabsim.NoteableMergeRequest, gm.IID, g.alice.ID, "/fs-review please")
	must(t, err)
	g.settle()
	_, err = g.poller(t).Cycle(ctx)
	must(t, err)
	_, key := keyOf(webhookEv[firstKey(webhookEv)], changepos.Pos{At: n.CreatedAt, ID: n.ID})
	_, gkey := keyOf(g.disp.events[firstKey(g.disp.events)], changepos.Pos{At: gn.CreatedAt, ID: gn.ID})
	if key != gkey || !reflect.DeepEqual(webhookEv[key], g.disp.events[gkey]) {
		t.Fatalf("events differ:\nwebhook %+v\npoller  %+v", webhookEv[key], g.disp.events[gkey])
	}
}

func firstKey[V any](m map[string]V) string {
	for k := range m {
		return k
	}
	return ""
}

// TestDroppedWebhook: the backstop dispatches a change whose webhook was
// dropped once, a second cycle and a restarted poller add nothing, and the
// calls per dispatched change are reported.
func TestDroppedWebhook(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	m := f.openMR(t)
	_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "/fs-triage")
	must(t, err)
	f.settle()
	p := f.poller(t)
	before := f.sim.CallsTotal()
	st, err := p.Cycle(ctx)
	must(t, err)
	if st.Dispatched != 1 {
		t.Fatalf("first cycle %+v, want 1 dispatched", st)
	}
	t.Logf("cycle dispatching one change: %d API calls (dispatch and settle included)", f.sim.CallsTotal()-before)
	before = f.sim.CallsTotal()
	st, err = p.Cycle(ctx)
	must(t, err)
	if st.New != 0 || st.Dispatched != 0 || f.sim.CallsTotal()-before != 2 {
		t.Fatalf("second cycle %+v with %d calls, want nothing new in 2 calls", st, f.sim.CallsTotal()-before)
	}
	st, err = f.poller(t).Cycle(ctx) // a restarted poller
	must(t, err)
	if st.Dispatched != 0 || st.Known != 1 {
		t.Fatalf("restarted poller %+v, want the change known", st)
	}
	if live := f.live(); len(live) != 1 || live[firstKey(live)] != 1 {
		t.Fatalf("pipelines per key %v, want one key with one pipeline", live)
	}
}

// TestRace: 100 notes on 10 merge requests, the webhook path delivering
// two thirds of them while 3 pollers run concurrently: no note has two
// live pipelines, every merge request's newest note has one, and a note
// without one is covered by a live pipeline of a newer note of its merge
// request (the newest-pending rule cancels an older note's pipeline
// dispatched after a newer one's).
func TestRace(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	var mrs []gitlabsim.MergeRequest
	for range 10 {
		mrs = append(mrs, f.openMR(t))
	}
	type hook struct{ body []byte }
	var hooks []hook
	for i := range 100 {
		f.clk.Advance(time.Second)
		_, body, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, mrs[i%10].IID, f.alice.ID, fmt.Sprintf("note %d", i))
		must(t, err)
		if i%3 != 0 { // every third webhook is dropped
			hooks = append(hooks, hook{body})
		}
	}
	f.settle()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	wg.Go(func() {
		for _, h := range hooks {
			errs <- f.webhook(ctx, h.body)
		}
	})
	for range 3 {
		p := f.poller(t)
		wg.Go(func() {
			for range 2 {
				_, err := p.Cycle(ctx)
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	live := f.live()
	newestLive := map[string]changepos.Pos{} // scope → newest note with a live pipeline
	dups := 0
	for key, n := range live {
		dups += n - 1
		if p, ok := newest.Change(key); ok && p.After(newestLive[newest.Scope(key)]) {
			newestLive[newest.Scope(key)] = p
		}
	}
	covered, stale := 0, 0
	for key := range f.count(true) {
		p, _ := newest.Change(key)
		if live[key] == 0 && newestLive[newest.Scope(key)].After(p) {
			covered++
		}
		if p.After(newestLive[newest.Scope(key)]) {
			stale++ // a merge request's newest note without a live pipeline
		}
	}
	if len(live)+covered != 100 || dups != 0 || stale != 0 {
		t.Fatalf("%d of 100 notes dispatched, %d covered by a newer note's pipeline, %d duplicates, %d newest notes without a live pipeline",
			len(live), covered, dups, stale)
	}
}

// TestIdleCost: with 1 000 open merge requests and issues and nothing new
// an idle cycle costs 2 API calls.
func TestIdleCost(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	for i := range 500 {
		_, _, err := f.sim.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceBranch: fmt.Sprint("b", i),
			TargetBranch: "main", Title: "t", AuthorID: f.alice.ID})
		must(t, err)
		_, _, err = f.sim.CreateIssue(project, f.alice.ID, "t", "d", nil)
		must(t, err)
	}
	f.clk.Advance(DefaultLookback + time.Hour)
	before := f.sim.CallsTotal()
	st, err := f.poller(t).Cycle(ctx)
	must(t, err)
	calls := f.sim.CallsTotal() - before
	t.Logf("idle cycle, 1000 open merge requests and issues: %d API calls", calls)
	if calls != 2 || st.Candidates != 0 {
		t.Fatalf("idle cycle: %d calls, %+v; want 2 calls and no candidates", calls, st)
	}
}

// TestWebhookLabelThenPoll: a label change and an issue note delivered by
// the webhook path carry the change ids the poller detects, so the poller
// dispatches nothing for them.
func TestWebhookLabelThenPoll(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	is, _, err := f.sim.CreateIssue(project, f.alice.ID, "t", "d", nil)
	must(t, err)
	f.clk.Advance(DefaultLookback + time.Hour)
	hook, err := f.sim.ChangeLabels(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, []string{"fs:triage"}, nil)
	must(t, err)
	must(t, f.webhook(ctx, hook))
	f.clk.Advance(time.Second)
	_, hook, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, "/fs-triage")
	must(t, err)
	must(t, f.webhook(ctx, hook))
	f.settle()
	st, err := f.poller(t).Cycle(ctx)
	must(t, err)
	if st.Changes != 2 || st.Known != 2 || st.Dispatched != 0 {
		t.Fatalf("poll after webhooks: %+v, want 2 changes, both known", st)
	}
}

// TestGrace: a change younger than Grace is left to the webhook path and
// dispatched by the backstop once it is older.
func TestGrace(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	m := f.openMR(t)
	_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "late webhook")
	must(t, err)
	p, err := New(Options{Client: f.gl, Project: project, Now: f.clk.Now, Dispatch: f.disp, Grace: DefaultGrace})
	must(t, err)
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
}

// TestForkNote: a note on a merge request from a fork maps to the same
// event on both paths (the head names the fork's path).
func TestForkNote(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	f.sim.AddProject("mallory/platform")
	m, _, err := f.sim.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceProject: "mallory/platform",
		SourceBranch: "main", TargetBranch: "main", Title: "t", AuthorID: f.alice.ID})
	must(t, err)
	f.clk.Advance(DefaultLookback + time.Hour)
	_, hook, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, m.IID, f.alice.ID, "/fs-review")
	must(t, err)
	must(t, f.webhook(ctx, hook))
	webhookEv := f.disp.events[firstKey(f.disp.events)]
	f.disp.events = map[string]*event.Event{}
	f.disp.skipDone = true
	f.settle()
	_, err = f.poller(t).Cycle(ctx)
	must(t, err)
	pollEv := f.disp.events[firstKey(f.disp.events)]
	if pollEv == nil || !reflect.DeepEqual(webhookEv, pollEv) || webhookEv.State.ChangeProposal.HeadRepo != "mallory/platform" {
		t.Fatalf("events differ or lack the fork:\nwebhook %+v\npoller  %+v", webhookEv, pollEv)
	}
}
