package jira_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestRetriesUnderInjectedFaults(t *testing.T) {
	const search = "POST /rest/api/3/search/jql"
	const getProp = "GET /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"
	tests := []struct {
		name       string
		fault      jirasim.Fault
		call       string // search or get
		wantErr    bool
		wantWaits  []time.Duration
		wantCalls  int
		wantStatus string
	}{
		{"429 honours Retry-After", jirasim.Fault{Endpoint: search, Status: 429, RetryAfter: 7 * time.Second, Times: 2},
			"search", false, []time.Duration{7 * time.Second, 7 * time.Second}, 3, "429"},
		{"503 honours Retry-After", jirasim.Fault{Endpoint: getProp, Status: 503, RetryAfter: 3 * time.Second},
			"get", false, []time.Duration{3 * time.Second}, 2, "503"},
		{"502 honours Retry-After", jirasim.Fault{Endpoint: getProp, Status: 502, RetryAfter: 4 * time.Second},
			"get", false, []time.Duration{4 * time.Second}, 2, "502"},
		{"500 backs off with jitter", jirasim.Fault{Endpoint: search, Status: 500, Times: 2},
			"search", false, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, 3, "500"},
		{"dropped connection retried", jirasim.Fault{Endpoint: getProp, DropConnection: true},
			"get", false, []time.Duration{50 * time.Millisecond}, 2, "0"},
		{"gives up after MaxRetries", jirasim.Fault{Endpoint: search, Status: 502, Times: -1},
			"search", true, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, 3, "502"},
		{"400 not retried", jirasim.Fault{Endpoint: search, Status: 400},
			"search", true, nil, 1, "400"},
		{"Retry-After beyond cap fails fast", jirasim.Fault{Endpoint: search, Status: 429, RetryAfter: time.Hour},
			"search", true, nil, 1, "429"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// the client's sleeps move the world's clock on, as real ones
			// do (a 429's Retry-After also holds back the client's other
			// calls until then, not the retry a second time)
			clk := &worldClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			s, c, _ := newPair(t, jirasim.Options{Now: clk.Now}, func(o *jira.Options) {
				o.Now, o.Sleep = clk.Now, clk.Sleep
				o.MaxRetries = 2
				o.BackoffBase = 100 * time.Millisecond
				o.Rand = func(n int64) int64 { return n / 2 }
			})
			key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
			s.SetPropertyDirect(key, "p", []byte(`1`))
			s.InjectFault(tc.fault)
			var err error
			if tc.call == "search" {
				_, err = c.Search(context.Background(), jira.SearchRequest{JQL: "project = PROJ"}, 0)
			} else {
				_, _, err = c.GetProperty(context.Background(), key, "p")
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got := clk.waits; !equalDurations(got, tc.wantWaits) {
				t.Errorf("waits = %v, want %v", got, tc.wantWaits)
			}
			if c.CallsTotal() != tc.wantCalls {
				t.Errorf("calls = %d, want %d (%v)", c.CallsTotal(), tc.wantCalls, c.Calls())
			}
			found := false
			for k := range c.Calls() {
				found = found || strings.HasSuffix(k, " "+tc.wantStatus)
			}
			if !found {
				t.Errorf("no call counted with status %s: %v", tc.wantStatus, c.Calls())
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRateLimitWaitsCounted(t *testing.T) {
	s, c, fs := newPair(t, jirasim.Options{}, func(o *jira.Options) { o.RPS = 1; o.Burst = 1 })
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	for i := 0; i < 3; i++ {
		if _, _, err := c.GetProperty(context.Background(), key, "p"); err != nil {
			t.Fatal(err)
		}
	}
	if c.RateLimitWaits() != 2 || len(fs.all()) != 2 {
		t.Errorf("limiter waits = %d (sleeps %v), want 2", c.RateLimitWaits(), fs.all())
	}
}

func TestAuthFailureAndRedaction(t *testing.T) {
	_, c, _ := newPair(t, jirasim.Options{RequiredToken: "right"}, func(o *jira.Options) { o.Token = "wrong-secret-token" })
	_, err := c.Myself(context.Background())
	if !jira.IsAuth(err) {
		t.Fatalf("err = %v, want auth error", err)
	}
	if strings.Contains(err.Error(), "wrong-secret-token") {
		t.Errorf("token leaked: %v", err)
	}
	_, c2, _ := newPair(t, jirasim.Options{RequiredToken: "right"}, func(o *jira.Options) { o.Token = "right"; o.Email = "" })
	if _, err := c2.Myself(context.Background()); err != nil {
		t.Errorf("bearer with right token: %v", err)
	}
}

func TestContextCancelStopsRetries(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, func(o *jira.Options) { o.Sleep = nil; o.BackoffBase = time.Hour; o.BackoffMax = time.Hour })
	s.InjectFault(jirasim.Fault{Status: 500, Times: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Myself(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

func TestSearchLagAndReconcile(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, c, _ := newPair(t, jirasim.Options{SearchLag: 5 * time.Second, Now: clock}, nil)
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ", Labels: []string{"old"}})
	ctx := context.Background()
	if got, err := c.Search(ctx, jira.SearchRequest{JQL: "project = PROJ"}, 0); err != nil || len(got) != 0 {
		t.Fatalf("fresh issue visible to lagging search: %v %v", got, err)
	}
	now = now.Add(6 * time.Second)
	got, err := c.Search(ctx, jira.SearchRequest{JQL: "labels = old"}, 0)
	if err != nil || len(got) != 1 {
		t.Fatalf("after lag: %v %v", got, err)
	}
	s.AddLabel(key, "new", "u1")
	if got, _ := c.Search(ctx, jira.SearchRequest{JQL: "labels = new"}, 0); len(got) != 0 {
		t.Error("label visible before lag passed")
	}
	id, ok := c.IssueID(key)
	if !ok {
		t.Fatal("id not remembered from search")
	}
	got, err = c.Search(ctx, jira.SearchRequest{JQL: "labels = new", ReconcileIssues: []int64{id}}, 0)
	if err != nil || len(got) != 1 {
		t.Fatalf("reconciled search: %v %v", got, err)
	}
	if _, found, _ := c.GetProperty(ctx, key, "none"); found {
		t.Error("unexpected property")
	}
}

func TestNearLimitHeaderFromEmulator(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, nil)
	if _, err := c.Myself(context.Background()); err != nil || c.Slowed() {
		t.Fatalf("plain call: slowed=%v err=%v", c.Slowed(), err)
	}
	s.InjectFault(jirasim.Fault{Endpoint: "GET /rest/api/3/status/{idOrName}", Header: map[string]string{"X-RateLimit-NearLimit": "true"}})
	if _, err := c.StatusCategory(context.Background(), "Done"); err != nil {
		t.Fatal(err)
	}
	if !c.Slowed() {
		t.Error("client did not slow down on X-RateLimit-NearLimit")
	}
}

func TestLogsNeverCarrySecrets(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, c, _ := newPair(t, jirasim.Options{}, func(o *jira.Options) { o.Logger = logger; o.Token = "very-secret-token" })
	s.InjectFault(jirasim.Fault{Status: 503, RetryAfter: time.Second})
	s.InjectFault(jirasim.Fault{DropConnection: true})
	if _, err := c.Myself(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "GET /rest/api/3/myself") || !strings.Contains(out, "retrying") {
		t.Fatalf("expected request and retry logs, got %s", out)
	}
	auth := base64.StdEncoding.EncodeToString([]byte("bot@example.com:very-secret-token"))
	if strings.Contains(out, "very-secret-token") || strings.Contains(out, auth) {
		t.Errorf("secret in logs: %s", out)
	}
}
