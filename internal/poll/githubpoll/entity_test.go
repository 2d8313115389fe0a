package githubpoll

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/resolvers/githubentity"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestResolveEntities: the entity stage gives the entity a resolution from
// scratch gives, reusing what detection read: an issue or pull request
// opened within the window costs nothing more; an older one costs its
// comments, its issue events and the roles of the actors detection did
// not meet.
func TestResolveEntities(t *testing.T) {
	inWindow := func(f *fixture, t *testing.T, pr bool) int {
		n, _, err := f.sim.OpenIssue(repo, githubsim.IssueSpec{Title: "t", Body: "b", Author: "alice", PullRequest: pr})
		must(t, err)
		f.clk.Advance(time.Second)
		return n
	}
	tests := []struct {
		name  string
		pr    bool
		old   bool // opened before the window
		extra map[string]int
	}{
		{"issue in the window", false, false, map[string]int{}},
		{"pull request in the window", true, false, map[string]int{}},
		{"older issue", false, true, map[string]int{githubsim.EndpointListIssueComments: 1, githubsim.EndpointListIssueEvents: 1,
			githubsim.EndpointPermission: 1}},
		{"older pull request", true, true, map[string]int{githubsim.EndpointListIssueComments: 1, githubsim.EndpointListIssueEvents: 1,
			githubsim.EndpointPermission: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ctx := newFixture(t), context.Background()
			var n int
			if tt.old {
				n = f.openIssue(t, tt.pr)
			} else {
				n = inWindow(f, t, tt.pr)
			}
			_, err := f.sim.SetLabel(repo, n, "mara", "needs-agent", true)
			must(t, err)
			if tt.pr {
				f.clk.Advance(time.Second)
				_, _, err = f.sim.SubmitReview(repo, n, "mara", "COMMENTED", "Looks close.")
				must(t, err)
			}
			f.comment(t, n, "/fs-triage please")
			d := NewDriver(f.poller(t), nil)
			d.AddOwnAccounts("fullsend-bot")
			items := f.detected(t, d)
			before := f.sim.Requests()
			counts := map[string]int{}
			for _, ep := range f.sim.Endpoints() {
				counts[ep] = f.sim.Calls(ep)
			}
			must(t, poll.ResolveEntities(ctx, d, items))
			got := map[string]int{}
			for _, ep := range f.sim.Endpoints() {
				if c := f.sim.Calls(ep) - counts[ep]; c != 0 {
					got[ep] = c
				}
			}
			if !sameCounts(got, tt.extra) {
				t.Errorf("the entity stage made calls %v, want %v", got, tt.extra)
			}
			total := 0
			for _, c := range tt.extra {
				total += c
			}
			if r := f.sim.Requests() - before; r != total {
				t.Errorf("%d requests, want %d", r, total)
			}
			f.checkEntity(t, items[0], n, tt.pr)
		})
	}
}

// detected runs discovery and detection once the last change's second is
// complete: the cycle's items with changes.
func (f *fixture) detected(t *testing.T, d *Driver) []*poll.Item {
	t.Helper()
	f.settle()
	ctx := context.Background()
	disc, err := d.Discover(ctx)
	must(t, err)
	if len(disc.Eligible) != 1 {
		t.Fatalf("%d eligible items, want 1", len(disc.Eligible))
	}
	must(t, d.Detect(ctx, disc.Eligible))
	if len(disc.Eligible[0].Changes) == 0 {
		t.Fatal("no changes detected")
	}
	return disc.Eligible
}

// checkEntity compares the item's entity with a resolution from scratch.
func (f *fixture) checkEntity(t *testing.T, it *poll.Item, n int, pr bool) {
	t.Helper()
	if it.Entity == nil || it.Entity.Err != nil {
		t.Fatalf("no entity: %+v", it.Entity)
	}
	gh, err := github.NewClient(f.base, token, github.ClientOptions{HTTPClient: &http.Client{Transport: f.tr}})
	must(t, err)
	ref := entity.Ref{System: "github", Repo: repo, Kind: entity.KindWorkItem, ID: int64(n)}
	if pr {
		ref.Kind = entity.KindChangeProposal
	}
	want, err := githubentity.New(gh, githubentity.Options{Own: []string{"fullsend-bot"}}).Resolve(context.Background(), ref)
	must(t, err)
	a, _ := json.Marshal(it.Entity.Entity)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Errorf("the entity stage's entity differs from a resolution from scratch:\n got: %s\nwant: %s", a, b)
	}
	if len(want.Activity) < 3 {
		t.Errorf("activity %+v: want the body, the label, the comment (and the review)", want.Activity)
	}
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A failed read of the entity (the issue events refused) is the item's
// resolution error; the cycle goes on.
func TestResolveEntitiesFailure(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	n := f.openIssue(t, false)
	f.comment(t, n, "/fs-triage")
	d := NewDriver(f.poller(t), nil)
	items := f.detected(t, d)
	f.sim.Inject(githubsim.Fault{Endpoint: githubsim.EndpointListIssueEvents, Status: 403, Message: "Forbidden"})
	must(t, poll.ResolveEntities(ctx, d, items))
	if r := items[0].Entity; r == nil || r.Err == nil || r.Entity != nil {
		t.Fatalf("resolution %+v, want an error", r)
	}
	if d.EntitySystem() != entity.SystemGitHub {
		t.Errorf("entity system %q", d.EntitySystem())
	}
}

// The token's account, once Account read it, is one of the tool's own
// accounts for the entity stage's versions.
func TestAccountIsOwn(t *testing.T) {
	f := newFixture(t)
	id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}}
	in, err := build(id, repo, "", token, f.tr, poll.InputEnv{})
	must(t, err)
	in.AddOwnAccounts("ci-bot")
	acct, err := in.Account(context.Background())
	must(t, err)
	if got := in.ownIDs(); !slices.Equal(got, []string{"ci-bot", acct}) {
		t.Errorf("own accounts %v, want [ci-bot %s]", got, acct)
	}
}

// The entity stage's requests are counted in the input's usage.
func TestEntityStageInUsage(t *testing.T) {
	f := newFixture(t)
	n := f.openIssue(t, false)
	f.comment(t, n, "/fs-triage")
	id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}}
	in, err := build(id, repo, "", token, f.tr, poll.InputEnv{Now: f.clk.Now})
	must(t, err)
	items := f.detected(t, in.Driver)
	calls, requests := in.Usage().Calls, f.sim.Requests()
	must(t, poll.ResolveEntities(context.Background(), in, items))
	if got, want := in.Usage().Calls-calls, f.sim.Requests()-requests; got != want || want != 3 {
		t.Errorf("usage counted %d calls of the entity stage's %d, want 3 (comments, events, alice's role)", got, want)
	}
}
