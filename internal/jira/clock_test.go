package jira_test

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestResetOnJirasClock: X-RateLimit-Reset and Retry-After dates are
// Jira's times: with Jira's clock an hour off the client's, the client
// waits what Jira meant (read against Jira's clock, Options.Clock, within
// its estimate's error), not an hour more or nothing.
func TestResetOnJirasClock(t *testing.T) {
	for _, skew := range []time.Duration{time.Hour, -time.Hour} {
		site := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(skew)
		at := func(d time.Duration) string { return site.Add(d).Format(time.RFC3339) }
		tests := []struct {
			name     string
			hdr      map[string]string
			status   int
			wantWait time.Duration
		}{
			{"reset without retry-after", map[string]string{"X-RateLimit-Reset": at(5 * time.Second)}, 429, 5 * time.Second},
			{"retry-after date", map[string]string{"Retry-After": site.Add(3 * time.Second).Format("Mon, 02 Jan 2006 15:04:05 GMT")}, 503, 3 * time.Second},
			{"remaining 0 pauses until reset", map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "10",
				"X-RateLimit-Reset": at(4 * time.Second)}, 0, 4 * time.Second},
		}
		for _, tc := range tests {
			t.Run(skew.String()+"/"+tc.name, func(t *testing.T) {
				clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
				s, c, _ := newPair(t, jirasim.Options{Now: func() time.Time { return clk.Now().Add(skew) }}, func(o *jira.Options) {
					o.Now, o.Sleep, o.Clock = clk.Now, clk.Sleep, trackerclock.New(clk.Now)
				})
				key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
				if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil { // Jira's clock is read
					t.Fatal(err)
				}
				s.InjectFault(jirasim.Fault{Status: tc.status, Header: tc.hdr})
				if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil && tc.status == 0 {
					t.Fatal(err)
				}
				if tc.status == 0 { // the pause applies to the next call
					if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil {
						t.Fatal(err)
					}
				}
				// Within the estimate's error: half the Date's second (the
				// round trip takes no world time here).
				if len(clk.waits) == 0 || (clk.waits[0]-tc.wantWait).Abs() > time.Second/2 {
					t.Errorf("waits = %v, want first %s ± 0.5s", clk.waits, tc.wantWait)
				}
			})
		}
	}
}
