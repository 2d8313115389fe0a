package jirapoll_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/quarantine"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// An event that fails validation is quarantined on the issue (property
// fullsend.poll.acme.platform.quarantine), lastCheck moves past it, and
// the cycle reports the failure.
func TestInvalidEventQuarantinedOnTheIssue(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	e.seed(k)
	e.clock.Advance(3 * time.Millisecond)
	id := e.sim.AddComment(k, alice, "/fs-triage poison")
	p := e.poller(pollerOpts{out: &recorder{}, queries: []string{"key = " + k}})
	p.o.Validate = func(ev *event.Event) error {
		if ev.Transition.Comment != nil && ev.Transition.Comment.Instruction == "poison" {
			return errors.New("/transition/comment/body: refused by the test")
		}
		return nil
	}
	res, err := p.cycle(context.Background())
	if !errors.Is(err, poll.ErrItemsFailed) || res.Stats.ChangesQuarantined != 1 {
		t.Fatalf("err %v quarantined %d, want ErrItemsFailed and 1", err, res.Stats.ChangesQuarantined)
	}
	raw, ok := e.sim.Property(k, quarantine.Key(repo))
	if !ok {
		t.Fatal("no quarantine property on the issue")
	}
	q, err := quarantine.Parse(raw)
	if err != nil || len(q.Entries) != 1 {
		t.Fatalf("quarantine %s: %v", raw, err)
	}
	en := q.Entries[0]
	if en.Change != "comment/"+id || !strings.Contains(en.Reason, "refused by the test") || en.TS.IsZero() || en.At.IsZero() {
		t.Errorf("entry = %+v", en)
	}
	if lc, ok := e.lastCheck(k); !ok || lc.TS.Before(en.At) {
		t.Errorf("lastCheck %v did not move past the quarantined change at %v", lc.TS, en.At)
	}
	if _, ok := e.lock(k); ok {
		t.Error("lock left on the issue")
	}
}

// Failed counts consecutive failures of the same change on the issue; a
// new change starts again at 1.
func TestFailedDispatchesCountedOnTheIssue(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	p := e.poller(pollerOpts{out: &recorder{}, queries: []string{"key = " + k}})
	ctx := context.Background()
	it := &poll.Item{ID: k}
	for i, change := range []string{"comment/1", "comment/1", "comment/1", "comment/2"} {
		n, err := p.drv.Failed(ctx, it, poll.Poison{Harness: "triage", Change: change, Reason: "HTTP 422"})
		want := []int{1, 2, 3, 1}[i]
		if err != nil || n != want {
			t.Fatalf("attempt %d: %d %v, want %d", i, n, err, want)
		}
	}
	raw, _ := e.sim.Property(k, quarantine.Key(repo))
	q, err := quarantine.Parse(raw)
	if err != nil || q.Attempts["triage"].Change != "comment/2" || q.Attempts["triage"].Reason != "HTTP 422" {
		t.Fatalf("quarantine %s: %v", raw, err)
	}
}
