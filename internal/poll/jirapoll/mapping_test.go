package jirapoll_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// capture is a core that records every event it is asked about once (a
// cycle decides twice: to plan the lock, then on the verified checkpoint)
// and matches nothing.
type capture struct {
	mu   sync.Mutex
	evs  []*event.Event
	seen map[*event.Event]bool
}

func (c *capture) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen[ev] {
		if c.seen == nil {
			c.seen = map[*event.Event]bool{}
		}
		c.seen[ev] = true
		c.evs = append(c.evs, ev)
	}
	return poll.Decision{Verdict: poll.VerdictNoMatch}
}

func (c *capture) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }
func (*capture) Refund([]plan.Run)                                      {}
func (*capture) DecidesEntities(string) bool                            { return false }

// summary renders an event as "kind[detail] actor/role raw_type/raw_action".
func summary(ev *event.Event) string {
	tr := ev.Transition
	detail := ""
	switch {
	case tr.Label != nil:
		detail = "[" + tr.Label.Action + " " + tr.Label.Name + "]"
	case tr.Comment != nil:
		detail = fmt.Sprintf("[%s|%s|%s]", tr.Comment.Command, tr.Comment.Instruction, tr.Comment.Body)
	}
	author := ""
	if ev.Actor.IsEntityAuthor {
		author = " author"
	}
	return fmt.Sprintf("%s%s %s/%s%s %s/%s", tr.Kind, detail, ev.Actor.ID, ev.Actor.Role, author, ev.Source.RawType, ev.Source.RawAction)
}

func TestChangeMapping(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.sim.AddStatus("Closed", "done")
	cases := []struct {
		name   string
		seeded bool
		act    func(k string)
		want   []string
	}{
		{"created without lastCheck", false, func(string) {},
			[]string{"opened acct-alice/write author issue/created"}},
		{"comment with command", true, func(k string) {
			e.sim.AddComment(k, alice, "/fs-triage  check the criteria\nsecond line")
		}, []string{"comment_added[/fs-triage|check the criteria|/fs-triage  check the criteria\nsecond line] acct-alice/write author comment/created"}},
		{"comment without command by an outsider", true, func(k string) {
			e.sim.AddComment(k, carol, "looks fine")
		}, []string{"comment_added[||looks fine] acct-carol/external comment/created"}},
		{"labels added and removed", true, func(k string) {
			e.sim.AddLabel(k, "bug", carol)
			e.sim.AddLabel(k, "ready", alice)
			e.sim.RemoveLabel(k, "bug", alice)
		}, []string{
			"label_changed[added bug] acct-carol/external changelog/labels",
			"label_changed[added ready] acct-alice/write author changelog/labels",
			"label_changed[removed bug] acct-alice/write author changelog/labels",
		}},
		{"status into and out of done", true, func(k string) {
			e.sim.SetStatus(k, "In Progress", alice)
			e.sim.SetStatus(k, "Closed", alice)
			e.sim.SetStatus(k, "To Do", alice)
		}, []string{
			"updated acct-alice/write author changelog/status",
			"closed acct-alice/write author changelog/status",
			"reopened acct-alice/write author changelog/status",
		}},
		{"summary, description and other fields", true, func(k string) {
			e.sim.SetSummary(k, "new title", alice)
			e.sim.SetDescription(k, "more words", alice)
			e.sim.SetField(k, "customfield_10010", "3", alice)
		}, []string{
			"edited acct-alice/write author changelog/summary",
			"edited acct-alice/write author changelog/description",
			"updated acct-alice/write author changelog/customfield_10010",
		}},
		{"bot comment", true, func(k string) {
			e.sim.AddComment(k, robot, "/fs-triage")
		}, []string{"comment_added[/fs-triage||/fs-triage] acct-robot/none comment/created"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := e.issue()
			if tc.seeded {
				e.seed(k)
				e.clock.Advance(3 * time.Millisecond)
			}
			tc.act(k)
			cap := &capture{}
			p := e.poller(pollerOpts{out: &recorder{}, queries: []string{"key = " + k}})
			p.o.Core = cap
			p.o.Validate = nil
			p.mustCycle()
			var got []string
			for _, ev := range cap.evs {
				if err := ev.Validate(); err != nil {
					t.Errorf("invalid event %s: %v", summary(ev), err)
				}
				if ev.Entity.Key != k || ev.Repo != repo || ev.Source.System != "jira" || !strings.HasSuffix(ev.Entity.URL, "/browse/"+k) {
					t.Errorf("event identity wrong: %+v", ev.Entity)
				}
				got = append(got, summary(ev))
			}
			if tc.name == "bot comment" {
				// the cycle drops bot events before the core; check the driver output directly
				got = botEvents(t, e, k)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// botEvents runs discovery and detection only and returns the events.
func botEvents(t *testing.T, e *env, k string) []string {
	// lastCheck was advanced by the cycle; seed it back before the comment.
	p := e.poller(pollerOpts{queries: []string{"key = " + k}})
	e.sim.SetPropertyDirect(k, checkKey(), []byte(`{"ts":"2000-01-01T00:00:00Z"}`))
	disc, err := p.drv.Discover(t.Context())
	if err != nil || len(disc.Eligible) != 1 {
		t.Fatalf("discover: %v", err)
	}
	if err := p.drv.Detect(t.Context(), disc.Eligible); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range disc.Eligible[0].Changes {
		if c.Event.Actor.Kind != event.ActorBot {
			t.Errorf("not a bot: %s", summary(c.Event))
		}
		out = append(out, summary(c.Event))
	}
	sort.Strings(out)
	return out
}

// An edited comment is a comment_added event with raw_action updated.
func TestEditedCommentIsAnUpdate(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	id := e.sim.AddComment(k, alice, "first words")
	e.seed(k)
	e.clock.Advance(3 * time.Millisecond)
	e.sim.EditComment(k, id, alice, "/fs-triage second words")
	rec := &recorder{}
	e.poller(pollerOpts{out: rec}).mustCycle()
	runs := rec.all()
	if len(runs) != 2 {
		t.Fatalf("%d runs, want triage and audit", len(runs))
	}
	ev := runs[0].Event
	if ev.Source.RawAction != "updated" || ev.Transition.Comment.ID != id || ev.Transition.Comment.Instruction != "second words" {
		t.Errorf("event = %+v %+v", ev.Source, ev.Transition.Comment)
	}
}
