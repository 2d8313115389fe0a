package cli

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
	"github.com/fullsend-dev/fullsend/sim/simseed"
)

// seededWorld is the world `fullsend sim --seed examples/sim/seed.yaml`
// serves, built the same way (simseed), with the emulators at hand to read
// their write counters.
type seededWorld struct {
	jira   *jirasim.Server
	github *githubsim.Server
	gitlab *gitlabsim.Server
	env    map[string]string // what `fullsend sim` prints to export
}

func newSeededWorld(t *testing.T) *seededWorld {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "examples", "sim", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sd, err := simseed.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	w := &seededWorld{jira: jirasim.New(sd.JiraOptions(jirasim.Options{})), env: map[string]string{}}
	if _, err := sd.ApplyJira(w.jira); err != nil {
		t.Fatal(err)
	}
	if w.github, err = sd.NewGitHub(); err != nil {
		t.Fatal(err)
	}
	w.gitlab = gitlabsim.New(sd.GitLabOptions())
	for i, h := range []*httptest.Server{httptest.NewServer(w.jira.Handler()), httptest.NewServer(w.github.Handler()),
		httptest.NewServer(w.gitlab.Handler())} {
		t.Cleanup(h.Close)
		for _, kv := range simBackends[i].env(h.URL, sd) {
			k, v, _ := strings.Cut(kv, "=")
			w.env[k] = v
		}
	}
	return w
}

// writes is every write request the emulators received.
func (w *seededWorld) writes() map[string]int {
	return map[string]int{"jira": w.jira.Writes(), "github": w.github.Writes(), "gitlab": w.gitlab.Writes()}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestReadOnlyCommandsWriteNothing: every command the docs call read-only
// (validate, status, poll --dry-run on each poll input) makes no write
// request to any emulator; the same world polled for real does write,
// which shows the counters count.
func TestReadOnlyCommandsWriteNothing(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", ".fullsend")
	cases := []struct {
		name     string
		args     func(t *testing.T, w *seededWorld) []string
		readOnly bool
	}{
		{"validate", func(*testing.T, *seededWorld) []string { return []string{"--config-dir", examples, "validate"} }, true},
		{"status", func(*testing.T, *seededWorld) []string { return []string{"--config-dir", examples, "status"} }, true},
		{"status --issue", func(*testing.T, *seededWorld) []string {
			return []string{"--config-dir", examples, "status", "--issue", "PROJ-1"}
		}, true},
		{"poll --dry-run jira-poll", func(*testing.T, *seededWorld) []string {
			return []string{"--config-dir", examples, "poll", "--dry-run"}
		}, true},
		{"poll --dry-run github-poll", func(t *testing.T, w *seededWorld) []string {
			return []string{"--config-dir", pollConfig(t, "github", "github-poll", w.env["GITHUB_API_URL"]), "poll", "--dry-run"}
		}, true},
		{"poll --dry-run gitlab-poll", func(t *testing.T, w *seededWorld) []string {
			w.gitlab.SetTokenUser(w.gitlab.AddUser("fullsend-bot", true).ID) // the seed names no token user
			return []string{"--config-dir", pollConfig(t, "gitlab", "gitlab-poll", w.env["GITLAB_API_URL"]), "poll", "--dry-run"}
		}, true},
		{"poll (writes: control)", func(*testing.T, *seededWorld) []string {
			return []string{"--config-dir", examples, "poll", "--output-driver", "json"}
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newSeededWorld(t)
			code, out, errs := runCLI(t, "", w.env, append([]string{"--log-format", "json"}, tc.args(t, w)...)...)
			if code != 0 {
				t.Fatalf("exit %d; stdout %q; stderr:\n%s", code, out, errs)
			}
			got := w.writes()
			if tc.readOnly && total(got) != 0 {
				t.Errorf("writes %v, want none (jira calls %v)", got, w.jira.Calls())
			}
			if !tc.readOnly && got["jira"] == 0 {
				t.Errorf("a real poll made no Jira write: the counters count nothing (calls %v)", w.jira.Calls())
			}
		})
	}
}

// simulatorsWalkthrough is the rehearsal of docs/simulators.md, command by
// command, after `fullsend sim --seed examples/sim/seed.yaml`, from the
// repository root; readOnly commands must not write, and each prints what
// the doc says.
var simulatorsWalkthrough = []struct {
	cmd      string
	readOnly bool
	prints   string
}{
	{"fullsend --config-dir examples/.fullsend validate", true, "3 agents"},
	{"fullsend --config-dir examples/.fullsend poll --dry-run", true, `"agent":"triage"`},
	{"fullsend --config-dir examples/.fullsend status", true, "scanned the 1 newest-updated candidate of the queries"},
	{"fullsend --config-dir examples/.fullsend status --issue PROJ-1", true, "PROJ-1"},
	{"fullsend --config-dir examples/.fullsend dispatch --input-driver gha-event --event-name issue_comment " +
		"--input-file examples/events/github-issue-comment.json --output-driver gha-dispatch", false, ""},
}

// docCommands returns the fullsend command lines of the ```sh blocks of a
// Markdown file, continuation lines joined.
func docCommands(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in, cont := false, false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "```"):
			in, cont = line == "```sh", false
		case in && cont:
			cmds[len(cmds)-1] += " " + strings.TrimSuffix(line, "\\")
		case in && strings.HasPrefix(line, "fullsend "):
			cmds = append(cmds, strings.TrimSuffix(line, "\\"))
		default:
			continue
		}
		cont = in && strings.HasSuffix(line, "\\")
	}
	for i, c := range cmds {
		cmds[i] = strings.Join(strings.Fields(c), " ")
	}
	return cmds
}

// TestSimulatorsWalkthrough runs the rehearsal of docs/simulators.md as
// written against the emulators its `fullsend sim` line serves: each
// command exits 0, the read-only ones write nothing, and the doc's
// commands are exactly the table's.
func TestSimulatorsWalkthrough(t *testing.T) {
	doc := docCommands(t, filepath.Join("..", "..", "docs", "simulators.md"))
	if len(doc) == 0 || doc[0] != "fullsend sim --seed examples/sim/seed.yaml" {
		t.Fatalf("docs/simulators.md does not start with fullsend sim --seed examples/sim/seed.yaml: %q", doc)
	}
	var want []string
	for _, c := range simulatorsWalkthrough {
		want = append(want, c.cmd)
	}
	if got := doc[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("docs/simulators.md's commands\n%s\ndiffer from the table\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	w := newSeededWorld(t)
	t.Chdir(filepath.Join("..", ".."))
	for _, c := range simulatorsWalkthrough {
		before := total(w.writes())
		code, out, errs := runCLI(t, "", w.env, strings.Fields(c.cmd)[1:]...)
		if code != 0 || !strings.Contains(out, c.prints) {
			t.Fatalf("%s: exit %d; stdout lacks %q:\n%s\nstderr:\n%s", c.cmd, code, c.prints, out, errs)
		}
		if n := total(w.writes()) - before; c.readOnly && n != 0 {
			t.Errorf("%s: %d writes, want none", c.cmd, n)
		}
	}
	if runs := w.github.Runs(); len(runs) != 1 {
		t.Errorf("the walkthrough dispatched %d runs on GitHub, want 1", len(runs))
	}
}
