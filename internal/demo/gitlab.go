package demo

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// The GitLab scene's cast and names.
const (
	glProject = "acme/platform"
	glToken   = "demo-gitlab-token"
	// glScopeKey is the scope of merge request !1 for the review harness.
	glScopeKey = "review:" + glProject + ":gitlab:change_proposal:1"
)

// gitlabWorld is the emulated GitLab of the GitLab scene: one project with
// a maintainer (Mia), an outsider (Oscar, no membership), merge request !1,
// and its own config directory (forge: gitlab, a review harness, the
// gitlab-pipeline output).
type gitlabWorld struct {
	sim      *gitlabsim.Server
	url      string // base URL, without /api/v4
	dir      string // config directory
	mia, osc gitlabsim.User
	bot      gitlabsim.User // the token's user: the tool's own account
	mrIID    int64
}

func newGitLabWorld(parent string) (*gitlabWorld, error) {
	g := &gitlabWorld{sim: gitlabsim.New(gitlabsim.Options{Token: glToken, Projects: []string{glProject}})}
	var err error
	if g.url, err = g.sim.Start(); err != nil {
		return nil, fmt.Errorf("start GitLab emulator: %w", err)
	}
	g.mia, g.osc = g.sim.AddUser("mia", false), g.sim.AddUser("oscar", false)
	g.bot = g.sim.AddUser("project_1_bot_fullsend", true)
	g.sim.SetTokenUser(g.bot.ID)
	if err := g.sim.SetMember(glProject, g.mia.ID, gitlabsim.AccessMaintainer); err != nil {
		g.sim.Close()
		return nil, err
	}
	mr, _, err := g.sim.CreateMergeRequest(glProject, gitlabsim.MergeRequestSpec{SourceBranch: "fix-import",
		TargetBranch: "main", Title: "Importer: keep rows with unicode names", AuthorID: g.mia.ID})
	if err != nil {
		g.sim.Close()
		return nil, err
	}
	g.mrIID = mr.IID
	g.dir = filepath.Join(parent, "gitlab")
	if err := g.writeConfig(); err != nil {
		g.sim.Close()
		return nil, err
	}
	return g, nil
}

func (g *gitlabWorld) close() { g.sim.Close() }

func (g *gitlabWorld) writeConfig() error {
	files := map[string]string{
		"config.yaml": `version: 1
repo: ` + glProject + `
forge: gitlab
agents:
  - name: review
    source: harness/review.yaml
authorization:
  min_role: write
outputs:
  gitlab-pipeline:
    ref: main
`,
		"harness/review.yaml": echoHarness("review", `  event.transition.kind == "comment_added" &&
  event.transition.comment.command == "/fs-review"
`, "review agent: $FULLSEND_SERIALIZATION_KEY"),
	}
	return writeFiles(g.dir, files)
}

// triggerEnv is the environment of the generated fullsend-dispatch job in
// a trigger pipeline whose TRIGGER_PAYLOAD file holds body.
func (g *gitlabWorld) triggerEnv(base map[string]string, body []byte) (map[string]string, error) {
	f, err := os.CreateTemp(g.dir, "TRIGGER_PAYLOAD-")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Write(body); err != nil {
		return nil, err
	}
	env := map[string]string{
		"CI_PIPELINE_SOURCE": "trigger", "TRIGGER_PAYLOAD": f.Name(),
		"CI_API_V4_URL": g.url + "/api/v4", "CI_PROJECT_PATH": glProject, "GITLAB_TOKEN": glToken,
	}
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		env[k] = base[k]
	}
	return env, nil
}

// statuses lists the project's pipelines' statuses, oldest first.
func (g *gitlabWorld) statuses() []string {
	var out []string
	for _, p := range g.sim.Pipelines(glProject) {
		out = append(out, p.Status)
	}
	return out
}
