package githubentity

import (
	"context"
	"flag"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/entitytest"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var update = flag.Bool("update", false, "rewrite the golden entities in testdata")

const (
	repo  = "acme/platform"
	token = "ghp_entityTestToken"
)

// fixture is an emulated repository with a writer (alice), a maintainer
// (mara) and the tool's own account (fullsend-bot, no permission).
type fixture struct {
	sim  *githubsim.Server
	base string
	tr   *http.Transport
	clk  *fakeclock.Clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := fakeclock.New(time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC))
	s := githubsim.New(githubsim.Options{Token: token, Now: clk.Now, Repos: []githubsim.Repo{{FullName: repo}}})
	base, err := s.Start()
	must(t, err)
	tr := &http.Transport{}
	t.Cleanup(func() { tr.CloseIdleConnections(); s.Close() })
	must(t, s.SetPermission(repo, "alice", "write"))
	must(t, s.SetPermission(repo, "mara", "maintain"))
	return &fixture{sim: s, base: base, tr: tr, clk: clk}
}

func (f *fixture) client(t *testing.T) *gogithub.Client {
	t.Helper()
	c, err := github.NewClient(f.base, token, github.ClientOptions{HTTPClient: &http.Client{Transport: f.tr}})
	must(t, err)
	return c
}

// resolver is a Resolver with the tool's own account read from the token.
func (f *fixture) resolver(t *testing.T) *Resolver {
	t.Helper()
	c := f.client(t)
	return New(c, Options{Own: []string{"Renovate[bot]"}, Self: func(ctx context.Context) (string, error) {
		return github.Self(ctx, c, DefaultPolicy)
	}})
}

// step advances the emulator's clock a minute: every change gets its own
// instant.
func (f *fixture) step() { f.clk.Advance(time.Minute) }

// calls is the emulator's per-endpoint call count.
func (f *fixture) calls(endpoints ...string) map[string]int {
	out := map[string]int{}
	for _, e := range endpoints {
		out[e] = f.sim.Calls(e)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// golden compares e, as indented JSON, with testdata/name (rewritten with
// -update), and checks that the file is a valid NormalizedEntity.
func golden(t *testing.T, name string, e *entity.Entity) {
	t.Helper()
	entitytest.Check(t, filepath.Join("testdata", name), e, *update)
}
