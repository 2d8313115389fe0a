package gitlabentity

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/authz"
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// issueScenario: bob's issue with a command in its description, alice's
// command, a system note, a label swap, the access token user's note, an
// outsider's command, assigned to carol and closed by alice.
func (f *fixture) issueScenario(t *testing.T) gitlabsim.Issue {
	t.Helper()
	s := f.sim
	is, _, err := s.CreateIssue(project, f.bob.ID, "Importer drops owners", "/fs-triage check the owners\nSteps to reproduce…", []string{"bug"})
	must(t, err)
	f.tick()
	_, _, err = s.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, "/fs-fix keep the owners")
	must(t, err)
	f.tick()
	_, err = s.AddSystemNote(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, "assigned to @carol")
	must(t, err)
	must(t, s.SetAssignees(project, gitlabsim.NoteableIssue, is.IID, f.carol.ID))
	f.tick()
	_, err = s.ChangeLabels(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, []string{"needs-agent"}, []string{"bug"})
	must(t, err)
	f.tick()
	_, _, err = s.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.botUser.ID, "Triage done.")
	must(t, err)
	f.tick()
	_, _, err = s.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.mallory.ID, "/fs-fix delete everything")
	must(t, err)
	f.tick()
	_, err = s.SetState(project, gitlabsim.NoteableIssue, is.IID, f.alice.ID, "close")
	must(t, err)
	return is
}

// mrScenario: mallory's draft merge request from a fork, assigned to
// carol, merged by alice, then alice's command in a note; it returns the
// note event's webhook body.
func (f *fixture) mrScenario(t *testing.T) (gitlabsim.MergeRequest, []byte) {
	t.Helper()
	s := f.sim
	mr, _, err := s.CreateMergeRequest(project, gitlabsim.MergeRequestSpec{SourceProject: "mallory/platform",
		SourceBranch: "short-names", TargetBranch: "main", Title: "Draft: shorten pipeline names",
		Description: "They exceed 255 characters.", AuthorID: f.mallory.ID, Labels: []string{"ci"}, Draft: true})
	must(t, err)
	must(t, s.SetAssignees(project, gitlabsim.NoteableMergeRequest, mr.IID, f.carol.ID))
	f.tick()
	_, err = s.SetState(project, gitlabsim.NoteableMergeRequest, mr.IID, f.alice.ID, "merge")
	must(t, err)
	f.tick()
	_, hook, err := s.AddNote(project, gitlabsim.NoteableMergeRequest, mr.IID, f.alice.ID, "/fs-review check the names")
	must(t, err)
	return mr, hook
}

func TestIssueGolden(t *testing.T) {
	f := newFixture(t)
	is := f.issueScenario(t)
	before := f.sim.CallsTotal()
	e := resolve(t, f.resolver(), ref(entity.KindWorkItem, is.IID))
	golden(t, "issue.json", e)
	// 3 reads of the issue, its notes and label events; the user and the
	// membership of each of its 4 actors (bob, alice, the token user,
	// mallory), once each.
	if got := f.sim.CallsTotal() - before; got != 3+2*4 {
		t.Errorf("resolution made %d calls, want 11", got)
	}
	for ep, want := range map[string]int{"get_issue": 1, "issue_notes": 1, "issue_label_events": 1, "get_user": 4, "get_member_all": 4} {
		if got := f.sim.Calls(ep); got != want {
			t.Errorf("%s: %d calls, want %d", ep, got, want)
		}
	}
	for _, el := range e.Activity {
		if el.Body == "assigned to @carol" {
			t.Errorf("the system note is an element: %+v", el)
		}
	}
}

// A note on a merge request arrives as an event about a work item linked
// to the merge request: it resolves to the merge request's entity, which
// holds the note.
func TestMergeRequestNoteEventResolvesToTheMergeRequest(t *testing.T) {
	f := newFixture(t)
	mr, hook := f.mrScenario(t)
	d, err := gitlabevent.New(gitlabevent.Options{Payload: hook, Project: project, Repo: project, API: &gitlabevent.Lookup{Client: f.gl}})
	must(t, err)
	ev, err := d.Read(context.Background())
	must(t, err)
	rf := entity.RefOf(ev)
	if want := ref(entity.KindChangeProposal, mr.IID); rf != want {
		t.Fatalf("RefOf(note event) = %s, want %s", rf, want)
	}
	e := resolve(t, f.resolver(), rf)
	golden(t, "merge-request.json", e)
	if e.Ref() != rf {
		t.Errorf("entity %s, want %s", e.Ref(), rf)
	}
	c := ev.Transition.Comment
	if el := e.Activity[0]; el.Kind != entity.ElementComment || el.ID != c.ID || el.Command != c.Command || el.Actor != ev.Actor {
		t.Errorf("newest element %+v, want the event's note %s by %+v", el, c.ID, ev.Actor)
	}
	if cp := e.State.ChangeProposal; !cp.Fork || !cp.Draft || e.State.Status != "merged" || e.State.Merged.IsZero() {
		t.Errorf("state %+v %+v", e.State, cp)
	}
}

// The role is the actor's role now: demoted between two resolutions, the
// actor's elements carry the new role; removed, external.
func TestRoleIsCurrent(t *testing.T) {
	f := newFixture(t)
	is := f.issueScenario(t)
	r := f.resolver()
	rf := ref(entity.KindWorkItem, is.IID)
	first := resolve(t, r, rf)
	must(t, f.sim.SetMember(project, f.alice.ID, gitlabsim.AccessReporter))
	second := resolve(t, r, rf)
	must(t, f.sim.SetMember(project, f.alice.ID, 0))
	third := resolve(t, r, rf)
	for _, tc := range []struct {
		e    *entity.Entity
		want event.Role
	}{{first, event.RoleMaintain}, {second, event.RoleTriage}, {third, event.RoleExternal}} {
		n := 0
		for _, el := range tc.e.Activity {
			if el.Actor.ID == f.alice.Username {
				n++
				if el.Actor.Role != tc.want {
					t.Errorf("%s %s by alice: role %s, want %s", el.Kind, el.ID, el.Actor.Role, tc.want)
				}
			}
		}
		if n != 2 { // her command and her label
			t.Errorf("alice has %d elements, want 2", n)
		}
	}
	if first.Version != second.Version || second.Version != third.Version {
		t.Error("a role change changed the version")
	}
}

// Any failed read denies: the entity is not built.
func TestFailedReadIsAnError(t *testing.T) {
	for _, ep := range []string{"get_member_all", "get_user", "issue_notes", "issue_label_events", "get_issue"} {
		t.Run(ep, func(t *testing.T) {
			f := newFixture(t)
			is := f.issueScenario(t)
			f.sim.InjectFault(gitlabsim.Fault{Endpoint: ep, Status: http.StatusForbidden})
			e, err := f.resolver().Resolve(context.Background(), ref(entity.KindWorkItem, is.IID))
			if err == nil || e != nil {
				t.Fatalf("Resolve with %s refused: %v, %v", ep, e, err)
			}
			if errors.Is(err, entity.ErrNotFound) {
				t.Errorf("a refusal reported as not found: %v", err)
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	f := newFixture(t)
	for _, rf := range []entity.Ref{ref(entity.KindWorkItem, 404), ref(entity.KindChangeProposal, 404)} {
		if _, err := f.resolver().Resolve(context.Background(), rf); !errors.Is(err, entity.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", rf, err)
		}
	}
}

func TestBadRef(t *testing.T) {
	f := newFixture(t)
	for _, rf := range []entity.Ref{
		{System: entity.SystemGitHub, Repo: project, Kind: entity.KindWorkItem, ID: 1},
		{System: entity.SystemGitLab, Repo: project, Kind: "conversation", ID: 1},
		{System: entity.SystemGitLab, Repo: project, Kind: entity.KindWorkItem},
	} {
		if _, err := f.resolver().Resolve(context.Background(), rf); err == nil {
			t.Errorf("%s accepted", rf)
		}
	}
	if f.sim.CallsTotal() != 0 {
		t.Errorf("bad refs made %d calls", f.sim.CallsTotal())
	}
}

// What the tool's own accounts do is no new version; anyone else's is.
func TestOwnAccountsDoNotChangeTheVersion(t *testing.T) {
	f := newFixture(t)
	is := f.issueScenario(t)
	r := f.resolver(f.botUser.Username)
	rf := ref(entity.KindWorkItem, is.IID)
	v := resolve(t, r, rf).Version
	f.tick()
	_, _, err := f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.botUser.ID, "Run started.")
	must(t, err)
	if got := resolve(t, r, rf).Version; got != v {
		t.Errorf("the own account's note changed the version")
	}
	if got := resolve(t, f.resolver(), rf).Version; got == v {
		t.Errorf("without own accounts the note did not change the version")
	}
	f.tick()
	_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.carol.ID, "/fs-fix again")
	must(t, err)
	if got := resolve(t, r, rf).Version; got == v {
		t.Errorf("carol's note did not change the version")
	}
}

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		ok   bool
	}{
		{"no URL", map[string]string{"GITLAB_TOKEN": "t"}, false},
		{"no token", map[string]string{"CI_API_V4_URL": "https://gitlab.example.com/api/v4"}, false},
		{"CI", map[string]string{"CI_API_V4_URL": "https://gitlab.example.com/api/v4", "GITLAB_TOKEN": "t", "CI_PROJECT_ID": "7"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := FromEnv(nil, func(k string) string { return tc.env[k] })
			if (err == nil) != tc.ok {
				t.Fatalf("FromEnv: %v", err)
			}
			if tc.ok && r.project(ref(entity.KindWorkItem, 1)) != tc.env["CI_PROJECT_ID"] {
				t.Errorf("project %q", r.project(ref(entity.KindWorkItem, 1)))
			}
			if !tc.ok {
				return
			}
			cfg := &config.Config{Authorization: config.Authorization{BotAccounts: []string{"fullsend-bot"}}}
			r, err = FromEnv(cfg, func(k string) string { return tc.env[k] })
			must(t, err)
			if own := r.ownFunc(); !own("fullsend-bot") || own("alice") {
				t.Error("the configured bot accounts are not the tool's own")
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Every element carries a role the activity filter accepts: an outsider's
// and the token user's commands are dropped, a maintainer's kept.
func TestResolvedActivityPassesTheFilter(t *testing.T) {
	f := newFixture(t)
	is := f.issueScenario(t)
	e := resolve(t, f.resolver(), ref(entity.KindWorkItem, is.IID))
	p, err := authz.NewPolicy(event.RoleWrite)
	must(t, err)
	kept, dropped, err := p.FilterActivity(e, "")
	must(t, err)
	var who []string
	for _, el := range kept.Activity {
		who = append(who, el.Kind+":"+el.Actor.ID)
	}
	if want := "label:alice comment:alice"; strings.Join(who, " ") != want || dropped != 4 {
		t.Errorf("kept %v (dropped %d), want %s (4 dropped: mallory's, the bot's and bob's two)", who, dropped, want)
	}
}

// The tool's own note on an issue whose activity already fills the bound
// (entity.MaxActivity) pushes an older element out of the entity, but not
// out of its version: a run's own note never makes its entity due again.
// A person's note still does.
func TestOwnActivityOnABusyIssueKeepsTheVersion(t *testing.T) {
	for _, n := range []int{entity.MaxActivity - 2, entity.MaxActivity, entity.MaxActivity + 10} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			f := newFixture(t)
			is, _, err := f.sim.CreateIssue(project, f.bob.ID, "busy", "", nil)
			must(t, err)
			for i := range n {
				f.tick()
				_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, []int64{f.alice.ID, f.carol.ID}[i%2], "note "+strconv.Itoa(i))
				must(t, err)
			}
			r, rf := f.resolver(f.botUser.Username), ref(entity.KindWorkItem, is.IID)
			v := resolve(t, r, rf).Version
			for range 3 {
				f.tick()
				_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.botUser.ID, "Run done.")
				must(t, err)
				if e := resolve(t, r, rf); e.Version != v {
					t.Fatalf("the own account's note gave a new version (activity %d elements, truncated %v)", len(e.Activity), e.ActivityTruncated)
				}
			}
			f.tick()
			_, _, err = f.sim.AddNote(project, gitlabsim.NoteableIssue, is.IID, f.carol.ID, "one more")
			must(t, err)
			if got := resolve(t, r, rf).Version; got == v {
				t.Errorf("carol's note did not change the version")
			}
		})
	}
}
