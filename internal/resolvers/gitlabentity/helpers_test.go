package gitlabentity

import (
	"context"
	"flag"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/entitytest"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var update = flag.Bool("update", false, "rewrite the golden entities")

const project = "acme/platform"

// fixture is an emulated GitLab: acme/platform and the fork
// mallory/platform; alice maintains, bob reports, carol develops, the
// project's access token user is a developer, mallory is no member.
type fixture struct {
	sim                                 *gitlabsim.Server
	clk                                 *fakeclock.Clock
	gl                                  *gitlab.Client
	alice, bob, carol, mallory, botUser gitlabsim.User
}

func newFixture(t *testing.T) *fixture { return newFixtureWith(t, nil) }

// newFixtureWith wraps the client's transport with wrap (nil: none).
func newFixtureWith(t *testing.T, wrap func(http.RoundTripper) http.RoundTripper) *fixture {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	s := gitlabsim.New(gitlabsim.Options{Projects: []string{project, "mallory/platform"}, Now: clk.Now})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() { tr.CloseIdleConnections(); s.Close() })
	var rt http.RoundTripper = tr
	if wrap != nil {
		rt = wrap(tr)
	}
	gl, err := glapi.NewClient(glapi.Options{APIURL: base, Token: s.Token(), Timeout: 5 * time.Second, Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sim: s, clk: clk, gl: gl}
	f.alice, f.bob, f.carol = s.AddUser("alice", false), s.AddUser("bob", false), s.AddUser("carol", false)
	f.mallory, f.botUser = s.AddUser("mallory", false), s.AddUser("project_1_bot_3f2a", true)
	must(t, s.SetMember(project, f.alice.ID, gitlabsim.AccessMaintainer))
	must(t, s.SetMember(project, f.bob.ID, gitlabsim.AccessReporter))
	must(t, s.SetMember(project, f.carol.ID, gitlabsim.AccessDeveloper))
	must(t, s.SetMember(project, f.botUser.ID, gitlabsim.AccessDeveloper))
	return f
}

func (f *fixture) resolver(own ...string) *Resolver {
	return New(f.gl, Options{Project: project, Own: own})
}

func (f *fixture) tick() { f.clk.Advance(time.Minute) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ref(kind string, iid int64) entity.Ref {
	return entity.Ref{System: entity.SystemGitLab, Repo: project, Kind: kind, ID: iid}
}

// golden compares e, encoded, with testdata/name (rewritten with
// -update), and checks the file against the entity schema.
func golden(t *testing.T, name string, e *entity.Entity) {
	t.Helper()
	entitytest.Check(t, filepath.Join("testdata", name), e, *update)
}

// roles maps each element (kind/id) to its actor's role.
func roles(e *entity.Entity) map[string]string {
	m := map[string]string{}
	for _, el := range e.Activity {
		m[el.Kind+"/"+el.ID] = string(el.Actor.Role)
	}
	return m
}

func resolve(t *testing.T, r *Resolver, rf entity.Ref) *entity.Entity {
	t.Helper()
	e, err := r.Resolve(context.Background(), rf)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
