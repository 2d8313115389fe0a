package jira_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeSleep records requested waits without sleeping.
type fakeSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (f *fakeSleep) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.waits = append(f.waits, d)
	f.mu.Unlock()
	return ctx.Err()
}

func (f *fakeSleep) all() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

// newPair starts an emulator and a client against it.
func newPair(t *testing.T, simOpts jirasim.Options, mod func(*jira.Options)) (*jirasim.Server, *jira.Client, *fakeSleep) {
	t.Helper()
	s := jirasim.New(simOpts)
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	fs := &fakeSleep{}
	o := jira.Options{BaseURL: base, Email: "bot@example.com", Token: "tok-123", RPS: 1000, Burst: 1000,
		Timeout: 2 * time.Second, Sleep: fs.sleep, Rand: func(n int64) int64 { return n / 2 }}
	if mod != nil {
		mod(&o)
	}
	c, err := jira.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s, c, fs
}

func TestSearchPaginationAndInlineProperties(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, nil)
	s.AddProject("PROJ", "Project")
	s.AddProject("OTHER", "Other")
	var keys []string
	for i := 0; i < 7; i++ {
		keys = append(keys, s.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: fmt.Sprintf("issue %d", i), Labels: []string{"bug"}}))
	}
	s.AddIssue(jirasim.IssueSpec{Project: "OTHER", Summary: "elsewhere"})
	s.SetStatus(keys[6], "Done", "u1")
	s.SetPropertyDirect(keys[2], "fullsend.poll.acme.platform.lock", json.RawMessage(`{"id":"x"}`))

	issues, err := c.Search(context.Background(), jira.SearchRequest{
		JQL:        "project = PROJ AND statusCategory != Done ORDER BY created ASC",
		Properties: []string{"fullsend.poll.acme.platform.lock"},
		MaxResults: 2,
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 6 {
		t.Fatalf("got %d issues, want 6", len(issues))
	}
	if got := s.Calls()["POST /rest/api/3/search/jql"]; got != 3 {
		t.Errorf("search pages = %d, want 3", got)
	}
	for _, is := range issues {
		if is.Fields.Status == nil || is.Fields.Status.StatusCategory.Key != "new" {
			t.Errorf("%s: status %+v", is.Key, is.Fields.Status)
		}
		if is.Fields.Project == nil || is.Fields.Project.Key != "PROJ" || is.Fields.Created.IsZero() {
			t.Errorf("%s: fields %+v", is.Key, is.Fields)
		}
		_, hasLock := is.Properties["fullsend.poll.acme.platform.lock"]
		if hasLock != (is.Key == keys[2]) {
			t.Errorf("%s: inline lock present = %v", is.Key, hasLock)
		}
	}
	limited, err := c.Search(context.Background(), jira.SearchRequest{JQL: "project = PROJ", MaxResults: 2}, 3)
	if err != nil || len(limited) != 3 {
		t.Fatalf("limit 3: %d issues, %v", len(limited), err)
	}
	if s.Calls()["POST /rest/api/3/search"] != 0 || s.Calls()["GET /rest/api/3/search"] != 0 {
		t.Error("client called the retired search endpoint")
	}
}

// TestSearchPage: one page at a time, each next token naming the page
// after it and none after the last; a token of another query is a 400.
func TestSearchPage(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, nil)
	s.AddProject("PROJ", "")
	for range 5 {
		s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	}
	ctx := context.Background()
	req := jira.SearchRequest{JQL: "project = PROJ ORDER BY key", MaxResults: 2}
	var got []string
	token := ""
	for page := 0; ; page++ {
		issues, next, err := c.SearchPage(ctx, req, token)
		if err != nil || page > 3 {
			t.Fatalf("page %d: %v (next %q)", page, err, next)
		}
		for _, is := range issues {
			got = append(got, is.Key)
		}
		if next == "" {
			break
		}
		token = next
	}
	if want := []string{"PROJ-1", "PROJ-2", "PROJ-3", "PROJ-4", "PROJ-5"}; !slices.Equal(got, want) {
		t.Fatalf("pages gave %v, want %v", got, want)
	}
	if n := s.Calls()["POST /rest/api/3/search/jql"]; n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
	if _, _, err := c.SearchPage(ctx, jira.SearchRequest{JQL: "project = PROJ ORDER BY created", MaxResults: 2}, token); !jira.IsBadRequest(err) {
		t.Errorf("a token of another query: %v, want a 400", err)
	}
}

func TestSearchBadJQLNamesJiraMessage(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, nil)
	s.AddProject("PROJ", "")
	tests := []struct {
		jql, want string
	}{
		{"project = NOPE", "does not exist for the field 'project'"},
		{"assignee = x", "Field 'assignee' does not exist"},
		{"ORDER BY created", "Unbounded JQL"},
		{"project = PROJ AND (", "Expecting"},
		{`updated >= "yesterday"`, "Date value 'yesterday'"},
	}
	for _, tc := range tests {
		_, err := c.Search(context.Background(), jira.SearchRequest{JQL: tc.jql}, 0)
		if !jira.IsBadRequest(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want 400 containing %q", tc.jql, err, tc.want)
		}
	}
	if _, err := c.Search(context.Background(), jira.SearchRequest{JQL: "project = PROJ", Properties: make([]string, 6)}, 0); err == nil {
		t.Error("6 properties accepted")
	}
	before := s.Calls()["POST /rest/api/3/search/jql"]
	if _, err := c.Search(context.Background(), jira.SearchRequest{JQL: "project = PROJ", ReconcileIssues: make([]int64, 51)}, 0); err == nil || !strings.Contains(err.Error(), "50") {
		t.Errorf("51 reconcile ids: err = %v, want an error naming Jira's limit of 50", err)
	}
	if after := s.Calls()["POST /rest/api/3/search/jql"]; after != before {
		t.Errorf("51 reconcile ids were sent to Jira")
	}
}

func TestPropertiesRoundTrip(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, nil)
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	ctx := context.Background()
	const prop = "fullsend.poll.acme.platform.lock"
	if _, found, err := c.GetProperty(ctx, key, prop); found || err != nil {
		t.Fatalf("absent property: found=%v err=%v", found, err)
	}
	if err := c.SetProperty(ctx, key, prop, map[string]string{"id": "a"}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetProperty(ctx, key, prop, map[string]string{"id": "b"}); err != nil {
		t.Fatal(err)
	}
	calls := c.Calls()
	if calls["PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 201"] != 1 ||
		calls["PUT /rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey} 200"] != 1 {
		t.Errorf("PUT statuses: %v", calls)
	}
	v, found, err := c.GetProperty(ctx, key, prop)
	if err != nil || !found || string(v) != `{"id":"b"}` {
		t.Fatalf("get = %s %v %v", v, found, err)
	}
	if raw, ok := s.Property(key, prop); !ok || string(raw) != `{"id":"b"}` {
		t.Errorf("emulator holds %s", raw)
	}
	if found, err := c.DeleteProperty(ctx, key, prop); !found || err != nil {
		t.Fatalf("delete: %v %v", found, err)
	}
	if found, err := c.DeleteProperty(ctx, key, prop); found || err != nil {
		t.Fatalf("second delete: %v %v", found, err)
	}
	big := strings.Repeat("x", jira.MaxPropertyValueChars)
	if err := c.SetProperty(ctx, key, prop, big); err == nil || !strings.Contains(err.Error(), "characters") {
		t.Errorf("oversized value: %v", err)
	}
	if err := c.SetProperty(ctx, key, prop, json.RawMessage(`{bad`)); err == nil {
		t.Error("invalid raw JSON accepted")
	}
	if err := c.SetProperty(ctx, "PROJ-999", prop, 1); !jira.IsNotFound(err) {
		t.Errorf("missing issue: %v", err)
	}
}

func TestCommentsSinceStopsEarly(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s, c, _ := newPair(t, jirasim.Options{Now: clock, CompactOffsets: true}, nil) // Jira Cloud's +0000 wire form
	key := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	for i := 0; i < 120; i++ {
		advance(time.Minute)
		s.AddComment(key, "u1", fmt.Sprintf("old %d", i))
	}
	since := clock()
	advance(time.Minute)
	s.AddComment(key, "u2", "/fs-triage check acceptance criteria\nsecond line")
	advance(time.Minute)
	s.AddComment(key, "u2", "newest")

	s.ResetCalls()
	got, err := c.CommentsSince(context.Background(), key, since)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Text != "newest" || got[1].Text != "/fs-triage check acceptance criteria\nsecond line" {
		t.Fatalf("comments = %+v", got)
	}
	if got[1].Author.AccountID != "u2" || !got[1].Created.After(since) {
		t.Errorf("comment meta = %+v", got[1])
	}
	if n := s.Calls()["GET /rest/api/3/issue/{issueIdOrKey}/comment"]; n != 1 {
		t.Errorf("comment pages fetched = %d, want 1 (early stop)", n)
	}
	all, err := c.CommentsSince(context.Background(), key, time.Time{})
	if err != nil || len(all) != 122 {
		t.Fatalf("all comments: %d %v", len(all), err)
	}
}

func TestChangelogsBulkAndSingle(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, nil)
	a := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	b := s.AddIssue(jirasim.IssueSpec{Project: "PROJ"})
	s.AddLabel(a, "needs-info", "u1")
	s.SetStatus(a, "In Progress", "u1")
	s.SetSummary(b, "new title", "u2")
	s.RemoveLabel(a, "needs-info", "u2")
	ctx := context.Background()
	s.ResetCalls()
	got, err := c.BulkChangelogs(ctx, []string{a, b, "PROJ-404"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One search names PROJ-404 as unknown, a second resolves a and b; only
	// PROJ-404 falls back to the per-issue call.
	calls := s.Calls()
	if calls["POST /rest/api/3/search/jql"] != 2 || calls["GET /rest/api/3/issue/{issueIdOrKey}/changelog"] != 1 || calls["POST /rest/api/3/changelog/bulkfetch"] != 1 {
		t.Errorf("calls = %v", calls)
	}
	if len(got[a]) != 3 || len(got[b]) != 1 || len(got) != 2 {
		t.Fatalf("bulk = %+v", got)
	}
	if it := got[a][0].Items[0]; it.Field != "labels" || it.ToString != "needs-info" {
		t.Errorf("first history of %s = %+v", a, it)
	}
	if it := got[a][1].Items[0]; it.FieldID != "status" || it.ToString != "In Progress" || it.FromString != "To Do" {
		t.Errorf("status history = %+v", it)
	}
	filtered, err := c.BulkChangelogs(ctx, []string{a}, []string{"status"})
	if err != nil || len(filtered[a]) != 1 {
		t.Fatalf("filtered = %+v %v", filtered, err)
	}
	single, err := c.Changelog(ctx, a)
	if err != nil || len(single) != 3 || single[2].Items[0].FromString != "needs-info" {
		t.Fatalf("single = %+v %v", single, err)
	}
}

func TestBulkChangelogsOneCallForManyIssues(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, nil)
	var keys []string
	for i := 0; i < 1200; i++ {
		keys = append(keys, s.AddIssue(jirasim.IssueSpec{Project: "PROJ"}))
	}
	s.AddLabel(keys[0], "x", "u1")
	s.AddLabel(keys[1100], "y", "u1")
	ctx := context.Background()
	if _, err := c.Search(ctx, jira.SearchRequest{JQL: "project = PROJ", MaxResults: 100}, 0); err != nil {
		t.Fatal(err)
	}
	s.ResetCalls()
	got, err := c.BulkChangelogs(ctx, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Calls()["POST /rest/api/3/changelog/bulkfetch"]; n != 2 {
		t.Errorf("bulk calls for 1200 issues = %d, want 2", n)
	}
	if len(got[keys[0]]) != 1 || len(got[keys[1100]]) != 1 {
		t.Errorf("histories missing: %d %d", len(got[keys[0]]), len(got[keys[1100]]))
	}
}

func TestMyselfRolesStatusCached(t *testing.T) {
	s, c, _ := newPair(t, jirasim.Options{}, nil)
	s.AddProject("PROJ", "")
	s.SetRole("PROJ", "Administrators", "admin1")
	s.SetRole("PROJ", "Developers", "dev1")
	s.SetRole("PROJ", "Developers", "admin1")
	s.SetRole("PROJ", "Users", "user1")
	s.SetMyself("bot1")
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		me, err := c.Myself(ctx)
		if err != nil || me.AccountID != "bot1" {
			t.Fatalf("myself = %+v %v", me, err)
		}
	}
	tests := map[string]event.Role{"admin1": event.RoleAdmin, "dev1": event.RoleWrite, "user1": event.RoleRead, "stranger": event.RoleExternal}
	for acc, want := range tests {
		got, err := c.RoleOf(ctx, "PROJ", acc)
		if err != nil || got != want {
			t.Errorf("RoleOf(%s) = %q %v, want %q", acc, got, err, want)
		}
	}
	for i := 0; i < 2; i++ {
		cat, err := c.StatusCategory(ctx, "In Progress")
		if err != nil || cat != "indeterminate" {
			t.Fatalf("status = %q %v", cat, err)
		}
	}
	calls := s.Calls()
	if calls["GET /rest/api/3/myself"] != 1 || calls["GET /rest/api/3/project/{projectIdOrKey}/role"] != 1 ||
		calls["GET /rest/api/3/project/{projectIdOrKey}/role/{id}"] != 3 || calls["GET /rest/api/3/status/{idOrName}"] != 1 {
		t.Errorf("caching failed: %v", calls)
	}
	if _, err := c.RoleOf(ctx, "NOPE", "x"); !jira.IsNotFound(err) {
		t.Errorf("unknown project: %v", err)
	}
	if _, err := c.RoleOf(ctx, `P" OR 1=1`, "x"); err == nil {
		t.Error("invalid project key accepted")
	}
}
