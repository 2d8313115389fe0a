package gitlabevent

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture is an emulated GitLab with two projects (acme/platform and the
// fork mallory/platform), four users and one issue and two merge requests.
type fixture struct {
	sim                          *gitlabsim.Server
	api                          *Lookup
	alice, bob, mallory, botUser gitlabsim.User
	hooks                        map[string][]byte // the webhooks of the set-up changes
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := gitlabsim.New(gitlabsim.Options{Projects: []string{"acme/platform", "mallory/platform"}, Now: func() time.Time { return now }})
	base, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() { tr.CloseIdleConnections(); s.Close() })
	c, err := glapi.NewClient(glapi.Options{APIURL: base, Token: s.Token(), Timeout: 5 * time.Second, Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sim: s, api: &Lookup{Client: c}, hooks: map[string][]byte{}}
	f.alice, f.bob, f.mallory = s.AddUser("alice", false), s.AddUser("bob", false), s.AddUser("mallory", false)
	f.botUser = s.AddUser("project_1_bot_3f2a", true)
	must(t, s.SetMember("acme/platform", f.alice.ID, gitlabsim.AccessMaintainer))
	must(t, s.SetMember("acme/platform", f.bob.ID, gitlabsim.AccessReporter))
	must(t, s.SetMember("acme/platform", f.botUser.ID, gitlabsim.AccessDeveloper))
	_, f.hooks["issue_open"], err = s.CreateIssue("acme/platform", f.bob.ID, "Importer drops owners", "Steps…", []string{"bug"})
	must(t, err)
	_, f.hooks["mr_open"], err = s.CreateMergeRequest("acme/platform", gitlabsim.MergeRequestSpec{SourceBranch: "fix/owners",
		TargetBranch: "main", Title: "Keep owners", AuthorID: f.alice.ID, Labels: []string{"review"}})
	must(t, err)
	_, f.hooks["mr_fork_open"], err = s.CreateMergeRequest("acme/platform", gitlabsim.MergeRequestSpec{SourceProject: "mallory/platform",
		SourceBranch: "main", TargetBranch: "main", Title: "Improve things", AuthorID: f.mallory.ID})
	must(t, err)
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// read runs the driver on body for project acme/platform.
func (f *fixture) read(t *testing.T, body []byte) ([]*event.Event, error) {
	t.Helper()
	d, err := New(Options{Payload: body, Project: "acme/platform", Repo: "acme/platform", API: f.api})
	if err != nil {
		t.Fatal(err)
	}
	return d.ReadAll(context.Background())
}

// edit decodes a webhook body, lets fn change it and encodes it again.
func edit(t *testing.T, body []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	must(t, json.Unmarshal(body, &m))
	fn(m)
	b, err := json.Marshal(m)
	must(t, err)
	return b
}

func obj(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }
