package cli

import (
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
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
	return newWorldFrom(t, filepath.Join("..", "..", "examples", "sim", "seed.yaml"))
}

// newWorldFrom is newSeededWorld with the seed file at path.
func newWorldFrom(t *testing.T, path string) *seededWorld {
	t.Helper()
	f, err := os.Open(path)
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

// walkStep is one line of a documented walkthrough: the sim line (the
// world is the walkthrough's seed), an export line (the values with "…"
// are what the sim printed), cd and go build (the walkthrough's dir), or
// a fullsend command, which exits 0 and prints what the doc says (on
// stdout; "stderr:…" on stderr); readOnly
// ones must not write, the others must.
type walkStep struct {
	cmd      string
	readOnly bool
	prints   string
}

// walkthroughs are the rehearsals of the docs, line by line, run from dir
// (from the repository root) on the world of seed.
var walkthroughs = []struct {
	doc, section string // the Markdown file and the heading of its section
	dir, seed    string
	steps        []walkStep
}{
	{"README.md", "## Quickstart", "examples", "examples/sim/seed.yaml", []walkStep{
		{"go build -o fullsend ./cmd/fullsend", true, ""},
		{"cd examples", true, ""},
		{"../fullsend validate", true, "ok: 3 agents, 3 triggers compiled\n"},
		{"../fullsend dispatch --input-file events/triage-comment.json", true, `"agent":"triage"`},
		{"../fullsend dispatch --input-file events/triage-comment.json --output-driver local", true, "stderr:] triage agent: harness=triage"},
		{"../fullsend dispatch --input-file events/outsider-comment.json", true, "[]"},
		{"../fullsend event validate events/label-added.json", true, ""},
		{"../fullsend sim --seed sim/seed.yaml &", true, ""},
		{"export GITHUB_API_URL=http://127.0.0.1:…/ GITHUB_TOKEN=sim-token", true, ""},
		{"../fullsend dispatch --input-driver gha-event --event-name issue_comment --input-file events/github-issue-comment.json", true, `"agent":"triage"`},
	}},
	{"docs/simulators.md", "## `fullsend sim`", ".", "examples/sim/seed.yaml", []walkStep{
		{"fullsend sim --seed examples/sim/seed.yaml", true, ""},
		{"export JIRA_BASE_URL=… JIRA_USER_EMAIL=… JIRA_TOKEN=… GITHUB_API_URL=… GITHUB_TOKEN=… GITLAB_API_URL=… GITLAB_TOKEN=…", true, ""},
		{"fullsend --config-dir examples/.fullsend validate", true, "3 agents"},
		{"fullsend --config-dir examples/.fullsend poll --dry-run", true, `"agent":"triage"`},
		{"fullsend --config-dir examples/.fullsend status", true, "scanned the 1 newest-updated candidate of the queries"},
		{"fullsend --config-dir examples/.fullsend status --issue PROJ-1", true, "PROJ-1"},
		{"fullsend --config-dir examples/.fullsend dispatch --input-driver gha-event --event-name issue_comment " +
			"--input-file examples/events/github-issue-comment.json --output-driver gha-dispatch", false, ""},
	}},
	{"docs/operations.md", "### Rehearse against the emulator", "examples/rehearsal", "examples/rehearsal/seed.json", []walkStep{
		{"cd examples/rehearsal", true, ""},
		{"fullsend sim --jira --seed seed.json --addr 127.0.0.1:18080 &", true, ""},
		{"JIRA_BASE_URL=http://127.0.0.1:18080 JIRA_TOKEN=any fullsend poll --dry-run", true, `"key\":\"PROJ-1\"`},
	}},
}

// docCommands returns the lines of the ```sh blocks of the section of a
// Markdown file under heading (up to the next heading of any level),
// continuation lines joined, comments removed.
func docCommands(t *testing.T, path, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	inSection, in, cont := false, false, false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, " #"); in && i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case !in && strings.HasPrefix(line, "#"):
			inSection = line == heading
		case !inSection:
		case strings.HasPrefix(line, "```"):
			in, cont = !in && line == "```sh", false
		case in && cont:
			cmds[len(cmds)-1] += " " + strings.TrimSuffix(line, "\\")
		case in && line != "":
			cmds = append(cmds, strings.TrimSuffix(line, "\\"))
		}
		cont = in && strings.HasSuffix(line, "\\")
	}
	for i, c := range cmds {
		cmds[i] = strings.Join(strings.Fields(c), " ")
	}
	return cmds
}

// TestDocWalkthroughs runs each documented rehearsal as written against
// the emulators its `fullsend sim` line serves, seeded as it says, and
// fails when the doc's lines differ from the table's.
func TestDocWalkthroughs(t *testing.T) {
	t.Setenv(actAsFullsend, "1") // the local executor's children are this binary
	for _, wt := range walkthroughs {
		t.Run(wt.doc, func(t *testing.T) {
			root := filepath.Join("..", "..")
			var want []string
			for _, c := range wt.steps {
				want = append(want, c.cmd)
			}
			doc := docCommands(t, filepath.Join(root, wt.doc), wt.section)
			if strings.Join(doc, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s %q: the lines\n%s\ndiffer from the table\n%s", wt.doc, wt.section, strings.Join(doc, "\n"), strings.Join(want, "\n"))
			}
			w := newWorldFrom(t, filepath.Join(root, wt.seed))
			t.Chdir(filepath.Join(root, wt.dir))
			env := map[string]string{}
			for _, c := range wt.steps {
				args := strings.Fields(c.cmd)
				switch {
				case args[0] == "cd" || args[0] == "go":
					continue
				case len(args) > 1 && args[1] == "sim":
					if i := slices.Index(args, "--seed"); i < 0 || filepath.Join(wt.dir, args[i+1]) != filepath.Clean(wt.seed) {
						t.Fatalf("%s: serves another seed than %s", c.cmd, wt.seed)
					}
					continue
				case args[0] == "export":
					for _, kv := range args[1:] {
						k, v, _ := strings.Cut(kv, "=")
						if env[k] = v; strings.Contains(v, "…") {
							env[k] = w.env[k]
						}
					}
					continue
				}
				walk(t, w, c, env, args)
			}
		})
	}
}

// walk runs one command of a walkthrough: VAR=value words before it are
// its environment (a base URL is the emulator's: the doc's fixed port is
// its sim line's).
func walk(t *testing.T, w *seededWorld, c walkStep, env map[string]string, args []string) {
	t.Helper()
	env = maps.Clone(env)
	for strings.Contains(args[0], "=") {
		k, v, _ := strings.Cut(args[0], "=")
		if env[k] = v; strings.HasSuffix(k, "_URL") {
			env[k] = w.env[k]
		}
		args = args[1:]
	}
	if base := filepath.Base(args[0]); base != "fullsend" {
		t.Fatalf("%s: runs %s, not fullsend", c.cmd, args[0])
	}
	before := total(w.writes())
	code, out, errs := runCLI(t, "", env, args[1:]...)
	where, prints := out, c.prints
	if p, ok := strings.CutPrefix(prints, "stderr:"); ok {
		where, prints = errs, p
	}
	if code != 0 || !strings.Contains(where, prints) {
		t.Fatalf("%s: exit %d; output lacks %q:\nstdout:\n%s\nstderr:\n%s", c.cmd, code, prints, out, errs)
	}
	switch n := total(w.writes()) - before; {
	case c.readOnly && n != 0:
		t.Errorf("%s: %d writes, want none", c.cmd, n)
	case !c.readOnly && n == 0:
		t.Errorf("%s: no write; it should have dispatched", c.cmd)
	}
}
