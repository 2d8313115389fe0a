package gitlabpoll

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/resolvers/gitlabentity"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// entityFixture: alice's merge request with carol's (a reporter's) note
// from before the lookback window, then, within it, bob's (a
// developer's) command and alice's label.
type entityFixture struct {
	*fixture
	bob, carol gitlabsim.User
	mr         gitlabsim.MergeRequest
	in         *Input
}

func newEntityFixture(t *testing.T) *entityFixture {
	t.Helper()
	f := &entityFixture{fixture: newFixture(t)}
	s := f.sim
	f.bob, f.carol = s.AddUser("bob", false), s.AddUser("carol", false)
	must(t, s.SetMember(project, f.bob.ID, gitlabsim.AccessDeveloper))
	must(t, s.SetMember(project, f.carol.ID, gitlabsim.AccessReporter))
	var err error
	f.mr, _, err = s.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceBranch: "fix", TargetBranch: "main",
		Title: "Fix", Description: "Keeps the owners.", AuthorID: f.alice.ID})
	must(t, err)
	_, _, err = s.AddNote(project, gitlabsim.NoteableMergeRequest, f.mr.IID, f.carol.ID, "/fs-triage please")
	must(t, err)
	f.clk.Advance(DefaultLookback + time.Hour)
	_, _, err = s.AddNote(project, gitlabsim.NoteableMergeRequest, f.mr.IID, f.bob.ID, "/fs-fix now")
	must(t, err)
	_, err = s.ChangeLabels(project, gitlabsim.NoteableMergeRequest, f.mr.IID, f.alice.ID, []string{"needs-agent"}, nil)
	must(t, err)
	f.in = f.configured(t, "")
	f.clk.Advance(DefaultGrace) // the changes are older than the grace: detection maps them
	return f
}

// detect runs discovery and detection as the cycle does and returns the
// eligible items.
func (f *entityFixture) detect(t *testing.T) []*poll.Item {
	t.Helper()
	ctx := context.Background()
	disc, err := f.in.Discover(ctx)
	must(t, err)
	if len(disc.Eligible) != 1 {
		t.Fatalf("%d eligible items, want 1", len(disc.Eligible))
	}
	must(t, f.in.Detect(ctx, disc.Eligible))
	return disc.Eligible
}

func (f *entityFixture) ref() entity.Ref {
	return entity.Ref{System: entity.SystemGitLab, Repo: project, Kind: entity.KindChangeProposal, ID: f.mr.IID}
}

// The entity stage builds the entity from detection's reads: the only
// calls it adds are the lookups of actors detection did not make (carol,
// outside the window: her user and membership), counted in Usage. The
// entity is the one a resolution from scratch gives.
func TestResolveEntitiesReusesDetection(t *testing.T) {
	f, ctx := newEntityFixture(t), context.Background()
	items := f.detect(t)
	usage, calls := f.in.Usage().Calls, f.sim.CallsTotal()
	must(t, poll.ResolveEntities(ctx, f.in, items))
	if got := f.in.Usage().Calls - usage; got != 2 || f.sim.CallsTotal()-calls != 2 {
		t.Errorf("the entity stage made %d calls (Usage %d), want 2", f.sim.CallsTotal()-calls, got)
	}
	if n := f.sim.Calls("get_merge_request"); n != 0 {
		t.Errorf("the merge request was read %d times, want never (the listing has it)", n)
	}
	res := items[0].Entity
	if res == nil || res.Err != nil {
		t.Fatalf("Item.Entity = %+v", res)
	}
	want, err := gitlabentity.New(f.gl, gitlabentity.Options{Project: project}).Resolve(ctx, f.ref())
	must(t, err)
	got, _ := json.Marshal(res.Entity)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("entity from detection's reads:\n%s\nresolved from scratch:\n%s", got, exp)
	}
	wantRoles := map[string]event.Role{"carol": event.RoleTriage, "bob": event.RoleWrite, "alice": event.RoleMaintain}
	for _, el := range res.Entity.Activity {
		if el.Actor.Role != wantRoles[el.Actor.ID] {
			t.Errorf("%s %s by %s: role %s, want %s", el.Kind, el.ID, el.Actor.ID, el.Actor.Role, wantRoles[el.Actor.ID])
		}
	}
	if f.in.EntitySystem() != entity.SystemGitLab {
		t.Errorf("EntitySystem %q", f.in.EntitySystem())
	}
}

// Roles are the current ones at each cycle: members demoted between two
// cycles appear with their new roles, whether detection or the entity
// stage looks them up.
func TestResolveEntitiesDemotedMember(t *testing.T) {
	f, ctx := newEntityFixture(t), context.Background()
	items := f.detect(t)
	must(t, poll.ResolveEntities(ctx, f.in, items))
	must(t, f.sim.SetMember(project, f.carol.ID, gitlabsim.AccessGuest))
	must(t, f.sim.SetMember(project, f.bob.ID, gitlabsim.AccessReporter))
	f.clk.Advance(time.Minute)
	_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, f.mr.IID, f.alice.ID, "thanks")
	must(t, err)
	items = f.detect(t)
	must(t, poll.ResolveEntities(ctx, f.in, items))
	want := map[string]event.Role{"carol": event.RoleRead, "bob": event.RoleTriage, "alice": event.RoleMaintain}
	for _, el := range items[0].Entity.Entity.Activity {
		if el.Actor.Role != want[el.Actor.ID] {
			t.Errorf("second cycle: %s %s by %s has role %s, want %s", el.Kind, el.ID, el.Actor.ID, el.Actor.Role, want[el.Actor.ID])
		}
	}
}

// A failed lookup denies the item's entity, not the cycle.
func TestResolveEntitiesFailedLookup(t *testing.T) {
	f, ctx := newEntityFixture(t), context.Background()
	items := f.detect(t)
	f.sim.InjectFault(gitlabsim.Fault{Endpoint: "get_member_all", Status: http.StatusForbidden})
	if err := poll.ResolveEntities(ctx, f.in, items); err != nil {
		t.Fatalf("ResolveEntities stopped the cycle: %v", err)
	}
	if res := items[0].Entity; res == nil || res.Err == nil || res.Entity != nil {
		t.Fatalf("Item.Entity = %+v, want the lookup's error", res)
	}
	undiscovered := &poll.Item{ID: "!999"}
	must(t, poll.ResolveEntities(ctx, f.in, []*poll.Item{undiscovered}))
	if undiscovered.Entity == nil || undiscovered.Entity.Err == nil {
		t.Errorf("an undiscovered item got %+v", undiscovered.Entity)
	}
}

// A subject whose listings filled their page caps may have more than
// detection read: it is not built from them; so is one that changed
// since.
func TestSeenSnapshotOnlyWhenComplete(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := subject{Subject: gitlabevent.Subject{Issue: &gitlab.Issue{IID: 1}}, updated: now}
	for _, tc := range []struct {
		name   string
		notes  int
		labels int
		at     time.Time
		ok     bool
	}{
		{"complete", 3, 3, now, true},
		{"notes at their cap", maxPages * 100, 0, now, false},
		{"label events at their cap", 0, 1000, now, false},
		{"changed since", 0, 0, now.Add(time.Second), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Poller{}
			p.sawSubject(s, make([]*gitlab.Note, tc.notes), make([]*gitlab.LabelEvent, tc.labels))
			later := s
			later.updated = tc.at
			if _, _, ok := p.seen.snapshot(later); ok != tc.ok {
				t.Errorf("snapshot usable %v, want %v", ok, tc.ok)
			}
		})
	}
}

// The token's own account (read by Account) is one of the tool's own:
// its note is no new version; bob's is.
func TestResolveEntitiesOwnAccount(t *testing.T) {
	f, ctx := newEntityFixture(t), context.Background()
	f.sim.SetTokenUser(f.alice.ID)
	if _, err := f.in.Account(ctx); err != nil {
		t.Fatal(err)
	}
	version := func() string {
		t.Helper()
		items := f.detect(t)
		must(t, poll.ResolveEntities(ctx, f.in, items))
		if items[0].Entity.Err != nil {
			t.Fatal(items[0].Entity.Err)
		}
		return items[0].Entity.Entity.Version
	}
	v := version()
	for _, tc := range []struct {
		who  gitlabsim.User
		same bool
	}{{f.alice, true}, {f.bob, false}} {
		f.clk.Advance(time.Minute)
		_, _, err := f.sim.AddNote(project, gitlabsim.NoteableMergeRequest, f.mr.IID, tc.who.ID, "a note")
		must(t, err)
		if got := version(); (got == v) != tc.same {
			t.Errorf("%s's note: version %s, before %s; same wanted %v", tc.who.Username, got, v, tc.same)
		}
	}
}
