package jirapoll_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestQuarantinedChangeCommentedOnce: a change the cycle quarantines (an
// invalid event, and a dispatch refused cycle after cycle while the
// output starts other runs) gets one comment on the issue with the
// reason and how to retry, by the poller's account and marked; the next
// cycles, which see that comment, write no second one and start nothing
// for it.
func TestQuarantinedChangeCommentedOnce(t *testing.T) {
	for _, tc := range []struct {
		name, body, reason string
		cycles             int
	}{
		{"invalid event", "/fs-triage poison", "refused by the test", 1},
		{"dispatch refused", "/fs-triage please", "injected dispatch failure", poll.MaxDispatchAttempts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			k := e.issue()
			e.seed(k)
			e.clock.Advance(3 * time.Millisecond)
			e.sim.AddComment(k, alice, tc.body)
			out := &recorder{}
			out.setFail("triage", tc.reason == "injected dispatch failure")
			p := e.poller(pollerOpts{out: out, queries: []string{"key = " + k}})
			p.o.Validate = func(ev *event.Event) error {
				if c := ev.Transition.Comment; c != nil && c.Instruction == "poison" {
					return errors.New("/transition/comment/body: refused by the test")
				}
				return nil
			}
			def := harness.DefaultReport()
			p.o.Feedback = feedback.New(feedback.Options{Writer: &feedback.Jira{Client: p.client}, System: event.SystemJira,
				Harnesses: harness.NewRegistry(&harness.Harness{Name: "triage", Enabled: true, Report: def},
					&harness.Harness{Name: "audit", Enabled: true, Report: def})})
			quarantined := 0
			for range tc.cycles + 2 {
				res, _ := p.cycle(context.Background())
				quarantined += res.Stats.ChangesQuarantined
				e.clock.Advance(pollcycle.DefaultIntentSettle + time.Second) // a failed dispatch's intent settles
			}
			if quarantined != 1 {
				t.Fatalf("%d changes quarantined, want 1", quarantined)
			}
			if n := e.sim.Calls()["POST /rest/api/3/issue/{issueIdOrKey}/comment"]; n != 1 {
				t.Errorf("%d comments posted, want 1", n)
			}
			var marked []string
			for _, c := range e.comments(k) {
				if feedback.IsOwn(c.Text) {
					marked = append(marked, c.Text)
					if c.Author.AccountID != "557058:fullsend-bot" {
						t.Errorf("comment by %s, want the poller's account", c.Author.AccountID)
					}
				}
			}
			if len(marked) != 1 || !strings.Contains(marked[0], tc.reason) || !strings.Contains(marked[0], "post the command again") {
				t.Fatalf("marked comments %q, want one with the reason %q", marked, tc.reason)
			}
			for _, r := range out.all() {
				if strings.Contains(r.Event.Transition.Comment.Body, "[fullsend:") {
					t.Errorf("a run started for the tool's own comment: %+v", r.Event.Transition)
				}
			}
		})
	}
}

// comments reads the issue's comments through a client of its own.
func (e *env) comments(key string) []jira.Comment {
	e.t.Helper()
	cs, err := e.client().CommentsSince(context.Background(), key, time.Time{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cs
}

// TestMarkedCommentIsTheTools: a comment carrying a feedback marker line
// is mapped as a bot's even when a person's account posted it, so it
// never starts a run; the same text without the marker is a request.
func TestMarkedCommentIsTheTools(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	e.sim.SetPropertyDirect(k, checkKey(), []byte(`{"ts":"2000-01-01T00:00:00Z"}`))
	e.sim.AddComment(k, alice, "/fs-triage started\n"+feedback.Marker(feedback.KindAcknowledge, "comment/1"))
	e.sim.AddComment(k, alice, "/fs-triage started")
	p := e.poller(pollerOpts{queries: []string{"key = " + k}})
	disc, err := p.drv.Discover(t.Context())
	if err != nil || len(disc.Eligible) != 1 {
		t.Fatalf("discover: %v", err)
	}
	if err := p.drv.Detect(t.Context(), disc.Eligible); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range disc.Eligible[0].Changes {
		if c.Event.Transition.Comment != nil {
			kinds = append(kinds, c.Event.Actor.Kind)
		}
	}
	if strings.Join(kinds, ",") != event.ActorBot+","+event.ActorHuman {
		t.Errorf("actor kinds %v, want the marked comment a bot's and the other a human's", kinds)
	}
}
