package githubentity

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// openIssue is issue #1: alice's description, a maintainer's label, an
// outsider's command, the tool's own comment, a bot's label, an assignee.
func (f *fixture) openIssue(t *testing.T) int {
	t.Helper()
	n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "Document the retry budget", Author: "alice",
		Body: "The retry budget is not described anywhere.", Labels: []string{"docs"}})
	must(t, err)
	f.step()
	_, err = f.sim.SetLabel(repo, n, "mara", "needs-agent", true)
	must(t, err)
	f.step()
	_, _, err = f.sim.AddComment(repo, n, "bob", "/fs-triage please")
	must(t, err)
	f.step()
	_, _, err = f.sim.AddComment(repo, n, "fullsend-bot", "Triaged: see the plan below.")
	must(t, err)
	f.step()
	_, err = f.sim.SetLabel(repo, n, "renovate[bot]", "deps", true)
	must(t, err)
	f.step()
	must(t, f.sim.SetAssignees(repo, n, "mara", "alice"))
	return n
}

// openPull is a pull request from a fork: alice's description, a
// maintainer's review with text and one without, a draft, alice's command.
func (f *fixture) openPull(t *testing.T) (int, githubsim.Delivery) {
	t.Helper()
	n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "Bound the retry budget", Author: "alice",
		Body: "Closes #1.", PullRequest: true, HeadRepo: "alice/platform"})
	must(t, err)
	f.step()
	_, _, err = f.sim.SubmitReview(repo, n, "mara", "CHANGES_REQUESTED", "Needs a test for the budget.")
	must(t, err)
	f.step()
	_, _, err = f.sim.SubmitReview(repo, n, "mara", "APPROVED", "")
	must(t, err)
	f.step()
	must(t, f.sim.SetDraft(repo, n, true))
	f.step()
	_, d, err := f.sim.AddComment(repo, n, "alice", "/fs-review focus on the tests")
	must(t, err)
	return n, d
}

var endpoints = []string{githubsim.EndpointGetIssue, githubsim.EndpointPull, githubsim.EndpointListIssueComments,
	githubsim.EndpointListIssueEvents, githubsim.EndpointListReviews, githubsim.EndpointPermission, githubsim.EndpointUser}

func TestResolveGolden(t *testing.T) {
	type counts = map[string]int
	tests := []struct {
		name, golden, kind string
		open               func(f *fixture, t *testing.T) int
		calls              counts
	}{
		{"issue", "issue.json", entity.KindWorkItem, (*fixture).openIssue,
			// issue 1 + comments 1 + events 1 + alice, mara, bob, fullsend-bot + the token's user once
			counts{"get_issue": 1, "list_issue_comments": 1, "list_issue_events": 1, "permission": 4, "user": 1}},
		{"pull request", "pull.json", entity.KindChangeProposal,
			func(f *fixture, t *testing.T) int { n, _ := f.openPull(t); return n },
			// pull 1 + comments 1 + events 1 + reviews 1 + alice, mara + the token's user once
			counts{"pull": 1, "list_issue_comments": 1, "list_issue_events": 1, "list_reviews": 1, "permission": 2, "user": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			n := tt.open(f, t)
			before := f.calls(endpoints...)
			e, err := f.resolver(t).Resolve(context.Background(), entity.Ref{System: "github", Repo: repo, Kind: tt.kind, ID: int64(n)})
			must(t, err)
			golden(t, tt.golden, e)
			for _, ep := range endpoints {
				if got := f.sim.Calls(ep) - before[ep]; got != tt.calls[ep] {
					t.Errorf("%s: %d calls, want %d", ep, got, tt.calls[ep])
				}
			}
		})
	}
}

// A comment on a pull request is, as an event, about a work item linked
// to the pull request; it resolves to the pull request's entity.
func TestResolvePullRequestComment(t *testing.T) {
	f := newFixture(t)
	_, d := f.openPull(t)
	lk := ghaevent.NewLookup(f.client(t))
	drv, err := ghaevent.New(ghaevent.Options{EventName: d.Event, Payload: d.Payload, Permissions: lk, Pulls: lk})
	must(t, err)
	ev, err := drv.Read(context.Background())
	must(t, err)
	if ev.Entity.Kind != event.KindWorkItem || ev.Entity.LinkedChangeProposal == nil {
		t.Fatalf("the comment event is about %+v, want a work item linked to the pull request", ev.Entity)
	}
	e, err := f.resolver(t).Resolve(context.Background(), entity.RefOf(ev))
	must(t, err)
	golden(t, "pull.json", e)
	if e.Activity[0].Kind != entity.ElementComment || e.Activity[0].ID != ev.Transition.Comment.ID {
		t.Errorf("newest element %+v, want the event's comment %s", e.Activity[0], ev.Transition.Comment.ID)
	}
}

func TestResolveDemotedActor(t *testing.T) {
	f := newFixture(t)
	n := f.openIssue(t)
	r := f.resolver(t)
	ref := entity.Ref{System: "github", Repo: repo, Kind: entity.KindWorkItem, ID: int64(n)}
	first, err := r.Resolve(context.Background(), ref)
	must(t, err)
	must(t, f.sim.SetPermission(repo, "alice", "read"))
	second, err := r.Resolve(context.Background(), ref)
	must(t, err)
	roles := func(e *entity.Entity) (out []string) {
		for _, el := range e.Activity {
			if el.Actor.ID == "alice" {
				out = append(out, string(el.Actor.Role))
			}
		}
		return out
	}
	if got := strings.Join(roles(first), ","); got != "write" {
		t.Errorf("first resolution: alice's roles %s, want write", got)
	}
	if got := strings.Join(roles(second), ","); got != "read" {
		t.Errorf("after the demotion: alice's roles %s, want read", got)
	}
	if first.Version != second.Version {
		t.Errorf("a role change gave a new version: %s, then %s", first.Version, second.Version)
	}
}

func TestResolveFailures(t *testing.T) {
	tests := []struct {
		name     string
		fault    *githubsim.Fault
		id       int64
		kind     string
		notFound bool
		want     string
	}{
		{"permission lookup refused", &githubsim.Fault{Endpoint: githubsim.EndpointPermission, Status: 403, Message: "Resource not accessible"},
			1, entity.KindWorkItem, false, "looking up the current role of"},
		{"comments unavailable", &githubsim.Fault{Endpoint: githubsim.EndpointListIssueComments, Status: 403, Message: "Forbidden"},
			1, entity.KindWorkItem, false, "reading the comments (page 1)"},
		{"issue events unavailable", &githubsim.Fault{Endpoint: githubsim.EndpointListIssueEvents, Status: 422, Message: "nope"},
			1, entity.KindWorkItem, false, "reading the issue events (page 1)"},
		{"no such issue", nil, 99, entity.KindWorkItem, true, "reading the issue"},
		{"an issue is no pull request", nil, 1, entity.KindChangeProposal, true, "reading the pull request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.openIssue(t)
			if tt.fault != nil {
				f.sim.Inject(*tt.fault)
			}
			e, err := f.resolver(t).Resolve(context.Background(), entity.Ref{System: "github", Repo: repo, Kind: tt.kind, ID: tt.id})
			if err == nil {
				t.Fatalf("resolved %+v, want an error", e)
			}
			if !strings.Contains(err.Error(), tt.want) || errors.Is(err, entity.ErrNotFound) != tt.notFound {
				t.Errorf("error %q (not found: %v), want one naming %q (not found: %v)", err, errors.Is(err, entity.ErrNotFound), tt.want, tt.notFound)
			}
		})
	}
}

// A listing longer than MaxPages pages keeps its newest pages, costs
// MaxPages+1 calls and marks the activity truncated.
func TestResolvePageCap(t *testing.T) {
	f := newFixture(t)
	n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "Busy", Author: "alice", Body: "Many comments."})
	must(t, err)
	const total = MaxPages*PerPage + 50
	var last int64
	for i := 0; i < total; i++ {
		f.step()
		last, _, err = f.sim.AddComment(repo, n, "alice", "comment")
		must(t, err)
	}
	before := f.sim.Calls(githubsim.EndpointListIssueComments)
	e, err := f.resolver(t).Resolve(context.Background(), entity.Ref{System: "github", Repo: repo, Kind: entity.KindWorkItem, ID: int64(n)})
	must(t, err)
	if got := f.sim.Calls(githubsim.EndpointListIssueComments) - before; got != MaxPages+1 {
		t.Errorf("%d calls to list the comments, want %d", got, MaxPages+1)
	}
	if !e.ActivityTruncated || len(e.Activity) != entity.MaxActivity {
		t.Errorf("truncated %v with %d elements, want truncated with %d", e.ActivityTruncated, len(e.Activity), entity.MaxActivity)
	}
	if e.Activity[0].ID != jsonID(last) {
		t.Errorf("newest element %s, want the last comment %d", e.Activity[0].ID, last)
	}
}

func jsonID(id int64) string { b, _ := json.Marshal(id); return string(b) }

// The tool's own comment on an issue whose activity already fills the
// bound (entity.MaxActivity) pushes an older element out of the entity,
// but not out of its version: a run's own comment never makes its entity
// due again. A person's comment still does.
func TestOwnActivityOnABusyIssueKeepsTheVersion(t *testing.T) {
	for _, n := range []int{entity.MaxActivity - 2, entity.MaxActivity, entity.MaxActivity + 10} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			f := newFixture(t)
			num, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "busy", Author: "alice"})
			must(t, err)
			for i := range n {
				f.step()
				_, _, err = f.sim.AddComment(repo, num, "alice", "note "+strconv.Itoa(i))
				must(t, err)
			}
			r, ref := f.resolver(t), entity.Ref{System: "github", Repo: repo, Kind: entity.KindWorkItem, ID: int64(num)}
			before, err := r.Resolve(context.Background(), ref)
			must(t, err)
			for range 3 {
				f.step()
				_, _, err = f.sim.AddComment(repo, num, "fullsend-bot", "done")
				must(t, err)
				after, err := r.Resolve(context.Background(), ref)
				must(t, err)
				if after.Version != before.Version {
					t.Fatalf("the tool's own comment gave a new version (activity %d elements, truncated %v)", len(after.Activity), after.ActivityTruncated)
				}
			}
			f.step()
			_, _, err = f.sim.AddComment(repo, num, "alice", "one more")
			must(t, err)
			if e, err := r.Resolve(context.Background(), ref); err != nil || e.Version == before.Version {
				t.Errorf("a person's comment gave no new version (err %v)", err)
			}
		})
	}
}
