package jiraentity_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/resolvers/jiraentity"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	site     = "https://acme.atlassian.net"
	repo     = "acme/platform"
	reporter = "557058:reporter"
	dev      = "557058:dev1"
	lead     = "557058:lead"
	outsider = "557058:outsider"
)

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// world is an emulated site with a project whose roles grant reporter
// read, dev write and lead admin, and a client against it.
type world struct {
	sim    *jirasim.Server
	client *jira.Client
	clock  *fakeclock.Clock
	base   string
}

func newWorld(t *testing.T, o jirasim.Options) *world {
	t.Helper()
	clock := fakeclock.New(t0)
	o.Now = clock.Now
	s := jirasim.New(o)
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	c, err := jira.New(jira.Options{BaseURL: base, Token: "tok", RPS: 1000, Burst: 1000, MaxRetries: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s.AddProject("PROJ", "Project")
	s.SetRole("PROJ", "Users", reporter)
	s.SetRole("PROJ", "Developers", dev)
	s.SetRole("PROJ", "Administrators", lead)
	return &world{sim: s, client: c, clock: clock, base: base}
}

// checkoutIssue is the golden issue: the reporter's description, the
// lead's label, the developer's assignment, status and command.
func (w *world) checkoutIssue() string {
	key := w.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "Checkout fails for carts over 100 items",
		Description: "Steps to reproduce: add 101 items, press checkout.", Labels: []string{"bug"}, Reporter: reporter, Created: t0})
	w.clock.Advance(time.Hour)
	w.sim.AddLabel(key, "needs-agent", lead)
	w.clock.Advance(time.Hour)
	w.sim.SetAssignee(key, dev, lead)
	w.sim.SetStatus(key, "In Progress", dev)
	w.clock.Advance(time.Hour)
	w.sim.AddComment(key, dev, "/fs-triage check acceptance criteria\nthe second line")
	return key
}

func (w *world) resolver(o jiraentity.Options) *jiraentity.Resolver {
	if o.SiteURL == "" {
		o.SiteURL = site
	}
	if o.Repo == "" {
		o.Repo = repo
	}
	return jiraentity.New(w.client, o)
}

func (w *world) ref(t *testing.T, key string) entity.Ref {
	t.Helper()
	id, err := strconv.ParseInt(w.sim.IssueID(key), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return entity.Ref{System: entity.SystemJira, Repo: repo, Kind: entity.KindWorkItem, ID: id}
}

func golden(t *testing.T, name string, e *entity.Entity) {
	t.Helper()
	got, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if _, err := entity.Decode(got); err != nil {
		t.Fatalf("the resolved entity is not a valid NormalizedEntity: %v\n%s", err, got)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("entity differs from %s (rerun with -update to accept):\n%s", path, got)
	}
}

// TestResolveGolden: one issue read (comments and changelog inline), the
// tool's own account and one read of the project's roles; the entity has
// the description, the comment and the label application, each actor
// with its role, and is valid.
func TestResolveGolden(t *testing.T) {
	w := newWorld(t, jirasim.Options{})
	key := w.checkoutIssue()
	w.sim.ResetCalls()
	e, err := w.resolver(jiraentity.Options{}).Resolve(context.Background(), w.ref(t, key))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "jira-work-item.json", e)
	want := map[string]int{
		"GET /rest/api/3/issue/{issueIdOrKey}":               1,
		"GET /rest/api/3/myself":                             1,
		"GET /rest/api/3/project/{projectIdOrKey}/role":      1,
		"GET /rest/api/3/project/{projectIdOrKey}/role/{id}": 3,
	}
	if got := w.sim.Calls(); !equalCalls(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if e.Version != entity.ComputeVersion(e, func(id string) bool { return id == "557058:fullsend-bot" }) {
		t.Error("version is not ComputeVersion with the tool's own account")
	}
}

func equalCalls(got, want map[string]int) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// TestResolveFurtherReads: comments beyond the inline page cost one
// comment listing (the newest page), a changelog beyond the inline 100
// entries the changelog pages; the entity is the same as with everything
// inline.
func TestResolveFurtherReads(t *testing.T) {
	build := func(o jirasim.Options) (*entity.Entity, map[string]int) {
		w := newWorld(t, o)
		key := w.checkoutIssue()
		for i := range 120 { // changelog entries that are no label
			w.clock.Advance(time.Second)
			w.sim.SetField(key, "customfield_10010", strconv.Itoa(i), dev)
		}
		w.sim.AddComment(key, lead, "second")
		w.clock.Advance(time.Second)
		w.sim.AddComment(key, reporter, "third")
		w.sim.ResetCalls()
		e, err := w.resolver(jiraentity.Options{}).Resolve(context.Background(), w.ref(t, key))
		if err != nil {
			t.Fatal(err)
		}
		return e, w.sim.Calls()
	}
	inline, calls := build(jirasim.Options{})
	if calls["GET /rest/api/3/issue/{issueIdOrKey}/comment"] != 0 || calls["GET /rest/api/3/issue/{issueIdOrKey}/changelog"] != 2 {
		t.Errorf("121+ changelog entries: calls %v, want 2 changelog pages and no comment listing", calls)
	}
	paged, calls := build(jirasim.Options{IssueComments: 1})
	if calls["GET /rest/api/3/issue/{issueIdOrKey}/comment"] != 1 {
		t.Errorf("comments beyond the inline page: calls %v, want one comment listing", calls)
	}
	a, _ := json.Marshal(inline)
	b, _ := json.Marshal(paged)
	if !bytes.Equal(a, b) {
		t.Errorf("the entity depends on what came inline:\n%s\n%s", a, b)
	}
	var kinds []string
	for _, el := range inline.Activity {
		kinds = append(kinds, el.Kind+":"+el.Actor.ID)
	}
	want := []string{"comment:" + reporter, "comment:" + lead, "comment:" + dev, "label:" + lead, "body:" + reporter}
	if len(kinds) != len(want) {
		t.Fatalf("activity %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("activity %v, want %v", kinds, want)
		}
	}
}

// TestDemotionShowsAtTheNextResolution: the roles are read at each
// resolution, not taken from the client's role cache.
func TestDemotionShowsAtTheNextResolution(t *testing.T) {
	w := newWorld(t, jirasim.Options{})
	key := w.checkoutIssue()
	r := w.resolver(jiraentity.Options{})
	ctx := context.Background()
	if _, err := w.client.RoleOf(ctx, "PROJ", dev); err != nil { // the client's cache holds write
		t.Fatal(err)
	}
	first, err := r.Resolve(ctx, w.ref(t, key))
	if err != nil {
		t.Fatal(err)
	}
	w.sim.RemoveRole("PROJ", "Developers", dev)
	second, err := r.Resolve(ctx, w.ref(t, key))
	if err != nil {
		t.Fatal(err)
	}
	roleOf := func(e *entity.Entity) event.Role {
		for _, el := range e.Activity {
			if el.Kind == entity.ElementComment && el.Actor.ID == dev {
				return el.Actor.Role
			}
		}
		t.Fatalf("no comment of %s", dev)
		return ""
	}
	if roleOf(first) != event.RoleWrite || roleOf(second) != event.RoleExternal {
		t.Errorf("roles %s then %s, want write then external", roleOf(first), roleOf(second))
	}
	if first.Version != second.Version {
		t.Error("a role change gave a new version")
	}
}

// TestResolveFailures: a role lookup that fails, or an issue that cannot
// be read, fails the resolution (evaluation is denied); an unknown issue
// is entity.ErrNotFound.
func TestResolveFailures(t *testing.T) {
	cases := []struct {
		name     string
		endpoint string
		status   int
		notFound bool
	}{
		{"roles", "GET /rest/api/3/project/{projectIdOrKey}/role", 500, false},
		{"one role", "GET /rest/api/3/project/{projectIdOrKey}/role/{id}", 503, false},
		{"myself", "GET /rest/api/3/myself", 500, false},
		{"issue", "GET /rest/api/3/issue/{issueIdOrKey}", 500, false},
		{"deleted", "", 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, jirasim.Options{})
			key := w.checkoutIssue()
			ref := w.ref(t, key)
			if tc.notFound {
				w.sim.DeleteIssue(key)
			} else {
				w.sim.InjectFault(jirasim.Fault{Endpoint: tc.endpoint, Status: tc.status, Times: -1})
			}
			e, err := w.resolver(jiraentity.Options{}).Resolve(context.Background(), ref)
			if err == nil || e != nil {
				t.Fatalf("resolved %v despite the failure", e)
			}
			if errors.Is(err, entity.ErrNotFound) != tc.notFound {
				t.Errorf("ErrNotFound %v, want %v: %v", errors.Is(err, entity.ErrNotFound), tc.notFound, err)
			}
		})
	}
	w := newWorld(t, jirasim.Options{})
	for _, ref := range []entity.Ref{
		{System: entity.SystemGitHub, Repo: repo, Kind: entity.KindWorkItem, ID: 1},
		{System: entity.SystemJira, Repo: repo, Kind: entity.KindChangeProposal, ID: 1},
		{System: entity.SystemJira, Repo: repo, Kind: entity.KindWorkItem},
	} {
		if _, err := w.resolver(jiraentity.Options{}).Resolve(context.Background(), ref); err == nil {
			t.Errorf("%s resolved", ref)
		}
	}
}

// TestOwnAndEditedActivity: the tool's own accounts (the client's and
// authorization.bot_accounts) are bots, and what they do is no new
// version; a description or comment edited by someone else is that
// editor's element.
func TestOwnAndEditedActivity(t *testing.T) {
	w := newWorld(t, jirasim.Options{})
	key := w.checkoutIssue()
	const extraBot = "557058:ci-bot"
	r := w.resolver(jiraentity.Options{BotAccounts: []string{extraBot}})
	ctx := context.Background()
	before, err := r.Resolve(ctx, w.ref(t, key))
	if err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Minute)
	w.sim.AddComment(key, "557058:fullsend-bot", "triaged")
	w.sim.AddLabel(key, "triaged", extraBot)
	after, err := r.Resolve(ctx, w.ref(t, key))
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != before.Version {
		t.Error("the tool's own comment and label gave a new version")
	}
	for _, el := range after.Activity[:2] {
		if el.Actor.Kind != event.ActorBot || el.Actor.Role != event.RoleNone {
			t.Errorf("%s %s by %s: %+v, want a bot", el.Kind, el.ID, el.Actor.ID, el.Actor)
		}
	}
	w.clock.Advance(time.Minute)
	w.sim.AddCommentADF(key, dev, json.RawMessage(`{"type":"doc","version":1,"content":[{"type":"mediaSingle","content":[{"type":"media","attrs":{"id":"x","type":"file","collection":"c"}}]}]}`))
	w.sim.SetDescription(key, "/fs-code ignore the tests", outsider)
	edited, err := r.Resolve(ctx, w.ref(t, key))
	if err != nil {
		t.Fatal(err)
	}
	if edited.Version == after.Version {
		t.Error("an edited description gave no new version")
	}
	if n := len(edited.Activity); n != len(after.Activity) {
		t.Errorf("%d elements after a description edit and an image-only comment, want %d (the comment without text is not listed)", n, len(after.Activity))
	}
	body := edited.Activity[0]
	if body.Kind != entity.ElementBody || body.Actor.ID != outsider || body.Actor.Role != event.RoleExternal || body.Command != "/fs-code" {
		t.Errorf("edited body %+v, want the outsider's /fs-code", body)
	}
}

// TestFromSearch: a sweep's search with jira.EntityFields and
// expand=changelog, completed by CompleteIssue (no further call when the
// search carried everything), builds the entity Resolve builds.
func TestFromSearch(t *testing.T) {
	w := newWorld(t, jirasim.Options{})
	key := w.checkoutIssue()
	r := w.resolver(jiraentity.Options{})
	ctx := context.Background()
	want, err := r.Resolve(ctx, w.ref(t, key))
	if err != nil {
		t.Fatal(err)
	}
	issues, err := w.client.Search(ctx, jira.SearchRequest{JQL: "project = PROJ", Fields: jira.EntityFields, Expand: "changelog"}, 0)
	if err != nil || len(issues) != 1 {
		t.Fatalf("search: %d issues, %v", len(issues), err)
	}
	w.sim.ResetCalls()
	read, err := w.client.CompleteIssue(ctx, issues[0])
	if err != nil {
		t.Fatal(err)
	}
	if n := len(w.sim.Calls()); n != 0 {
		t.Errorf("CompleteIssue of a whole search result called Jira: %v", w.sim.Calls())
	}
	got, err := r.FromIssue(ctx, read, repo, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) {
		t.Errorf("from a search:\n%s\nfrom an issue read:\n%s", a, b)
	}
}

// TestOwnActivityOnABusyIssueKeepsTheVersion: the tool's own comment on
// an issue whose activity already fills the bound (entity.MaxActivity)
// pushes an older element out of the entity, but not out of its version:
// the version is over the newest elements that are not the tool's own,
// so a run's own comment never makes its entity due again. A person's
// comment still does.
func TestOwnActivityOnABusyIssueKeepsTheVersion(t *testing.T) {
	for _, n := range []int{entity.MaxActivity - 2, entity.MaxActivity, entity.MaxActivity + 10} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			w := newWorld(t, jirasim.Options{})
			key := w.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Summary: "busy", Reporter: reporter, Created: t0})
			for i := range n {
				w.clock.Advance(time.Minute)
				w.sim.AddComment(key, dev, "note "+strconv.Itoa(i))
			}
			r := w.resolver(jiraentity.Options{})
			ctx := context.Background()
			before, err := r.Resolve(ctx, w.ref(t, key))
			if err != nil {
				t.Fatal(err)
			}
			for range 3 { // three runs, each commenting
				w.clock.Advance(time.Minute)
				w.sim.AddComment(key, "557058:fullsend-bot", "done")
				after, err := r.Resolve(ctx, w.ref(t, key))
				if err != nil {
					t.Fatal(err)
				}
				if after.Version != before.Version {
					t.Fatalf("the tool's own comment gave a new version (activity %d elements, truncated %v)", len(after.Activity), after.ActivityTruncated)
				}
			}
			w.clock.Advance(time.Minute)
			w.sim.AddComment(key, dev, "one more")
			if e, err := r.Resolve(ctx, w.ref(t, key)); err != nil || e.Version == before.Version {
				t.Errorf("a person's comment gave no new version (err %v)", err)
			}
		})
	}
}
