package jira_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// A call's gate decides whether each attempt may still leave: a write the
// gate stops before anything Jira could apply was sent is ErrNotSent (and
// no such attempt reached the site); one stopped after an attempt that may
// have been applied (a 5xx) is another error; one the gate lets through
// is the usual call.
func TestGate(t *testing.T) {
	const putProp = "PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"
	for _, tc := range []struct {
		name    string
		pause   time.Duration // the client paused by an earlier 429 this long
		fault   *jirasim.Fault
		budget  time.Duration // the gate allows waits up to this in all
		notSent bool
		failed  bool
		puts    int // attempts that reached the site
		value   bool
	}{
		{name: "no wait", budget: time.Second, puts: 1, value: true},
		{name: "a pause within the budget", pause: time.Second, budget: 2 * time.Second, puts: 1, value: true},
		{name: "a pause past the budget", pause: 5 * time.Second, budget: time.Second, notSent: true, failed: true},
		{name: "a 429 whose Retry-After is past the budget",
			fault: &jirasim.Fault{Endpoint: putProp, Status: 429, RetryAfter: 60 * time.Second}, budget: 3 * time.Second,
			notSent: true, failed: true, puts: 1},
		{name: "a 429 whose Retry-After is within it",
			fault: &jirasim.Fault{Endpoint: putProp, Status: 429, RetryAfter: time.Second}, budget: 3 * time.Second,
			puts: 2, value: true},
		{name: "a 503 whose retry is past the budget",
			fault: &jirasim.Fault{Endpoint: putProp, Status: 503, RetryAfter: 60 * time.Second}, budget: 3 * time.Second,
			failed: true, puts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			s, c, _ := newPair(t, jirasim.Options{Now: clk.Now}, func(o *jira.Options) {
				o.Now, o.Sleep = clk.Now, clk.Sleep
				o.MaxRetries = 2
			})
			key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
			if tc.pause > 0 {
				s.InjectFault(jirasim.Fault{Endpoint: "GET /rest/api/3/myself", Status: 429, RetryAfter: tc.pause})
				_, _ = c.Myself(context.Background()) // its retry waits the pause out; the next call waits again
				clk.Advance(-tc.pause)                // as if the next call came while the pause holds
			}
			if tc.fault != nil {
				s.InjectFault(*tc.fault)
			}
			before := s.Calls()[putProp]
			deadline := clk.Now().Add(tc.budget)
			gate := func(wait time.Duration) error {
				if clk.Now().Add(wait).After(deadline) {
					return errors.New("past the deadline")
				}
				return nil
			}
			err := c.SetProperty(jira.WithGate(context.Background(), gate), key, "p", 1)
			if (err != nil) != tc.failed || errors.Is(err, jira.ErrNotSent) != tc.notSent {
				t.Fatalf("err = %v, want failed %v, not sent %v", err, tc.failed, tc.notSent)
			}
			if got := s.Calls()[putProp] - before; got != tc.puts {
				t.Errorf("%d attempts reached the site, want %d", got, tc.puts)
			}
			if _, ok := s.Property(key, "p"); ok != tc.value {
				t.Errorf("property written %v, want %v", ok, tc.value)
			}
		})
	}
}

// SentAt records when a call's last attempt left: after the pause a
// 429's Retry-After imposed on the client, not before it.
func TestSentAt(t *testing.T) {
	clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s, c, _ := newPair(t, jirasim.Options{Now: clk.Now}, func(o *jira.Options) { o.Now, o.Sleep = clk.Now, clk.Sleep })
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	s.InjectFault(jirasim.Fault{Endpoint: "GET /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}", Status: 429, RetryAfter: time.Minute})
	start := clk.Now()
	at := start
	if _, _, err := c.GetProperty(jira.WithGate(context.Background(), jira.SentAt(&at, clk.Now)), key, "p"); err != nil {
		t.Fatal(err)
	}
	if got := at.Sub(start); got != time.Minute {
		t.Errorf("the read left %s after the call began, want a minute (after the Retry-After)", got)
	}
}
