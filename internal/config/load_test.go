package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/strictyaml"
	"github.com/fullsend-dev/fullsend/internal/strictyaml/strictyamltest"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

const okHarness = "role: r\ntrigger: 'true'\n"

func TestLoadDefaults(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [project = P]\n",
	})
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDriver := InputDriver{
		Type: "jira-poll",
		Connection: Connection{EmailEnv: "JIRA_USER_EMAIL", TokenEnv: "JIRA_TOKEN",
			Timeout: 15 * time.Second, RetryBudget: time.Minute, MaxRetries: 4},
		Queries: []string{"project = P"},
		Lock: Lock{M: 50, N: 5, StaleThreshold: 900 * time.Second, PendingTTL: 120 * time.Second, RefreshInterval: 300 * time.Second,
			JitterMin: 500 * time.Millisecond, JitterMax: 1500 * time.Millisecond},
		Concurrency: 4,
		RateLimit:   RateLimit{RPS: 10, Burst: 20},
	}
	want := &Config{
		Dir: dir, File: filepath.Join(dir, "config.yaml"), Version: 1, Forge: "github",
		Authorization: Authorization{MinRole: "write", BotAccounts: []string{}, ScheduledDiscovery: "deny"},
		Limits:        Limits{RunsPerScopePerHour: 6, TriggerCost: 1_000_000, TriggerTimeout: 100 * time.Millisecond},
		Poll:          Poll{InputDrivers: []InputDriver{wantDriver}, OutputDriver: "gha-dispatch"},
		Outputs: Outputs{GHADispatch: GHADispatch{Workflow: "fullsend-run.yml"},
			Local: Local{MaxParallel: 4, Grace: 30 * time.Second}},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Load =\n%+v\nwant\n%+v", c, want)
	}
}

func TestLoadExample(t *testing.T) {
	// The example's Jira site comes from the environment (a rehearsal
	// against `fullsend sim` exports the emulator's).
	env := map[string]string{"JIRA_BASE_URL": "https://acme.atlassian.net"}
	c, err := Load(filepath.Join("..", "..", "examples", ".fullsend"), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Repo != "acme/platform" || c.RepoSource != "config" || len(c.Agents) != 3 {
		t.Fatalf("repo %q (%s), %d agents", c.Repo, c.RepoSource, len(c.Agents))
	}
	if c.Agents[2].Name != "code" || c.Agents[2].IsEnabled() || !c.Agents[0].IsEnabled() {
		t.Errorf("agents enabled flags wrong: %+v", c.Agents)
	}
	if c.Agents[0].Line != 7 || c.Agents[0].Col != 5 || !strings.HasSuffix(c.Agents[0].Path, filepath.Join("harness", "triage.yaml")) {
		t.Errorf("agents[0] = %+v", c.Agents[0])
	}
	d := c.Poll.InputDrivers[0]
	if d.Connection.BaseURL != "https://acme.atlassian.net" || d.Project != "PROJ" || d.RateLimit.RPS != 10 || d.Lock.StaleThreshold != 900*time.Second {
		t.Errorf("input driver = %+v", d)
	}
}

func TestEnvResolution(t *testing.T) {
	base := "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n"
	cases := []struct {
		name       string
		extra      string // appended top-level YAML
		driverURL  string // connection block for the driver
		env        map[string]string
		repo, src  string
		baseURL    string
		ref, glPrj string
	}{
		{"config wins", "repo: cfg/repo\n", "", map[string]string{"GITHUB_REPOSITORY": "gh/repo", "CI_PROJECT_PATH": "gl/repo"}, "cfg/repo", "config", "", "", "cfg/repo"},
		{"github env next", "", "", map[string]string{"GITHUB_REPOSITORY": "gh/repo", "CI_PROJECT_PATH": "gl/repo"}, "gh/repo", "GITHUB_REPOSITORY", "", "", "gh/repo"},
		{"gitlab env last", "", "", map[string]string{"CI_PROJECT_PATH": "gl/sub/repo"}, "gl/sub/repo", "CI_PROJECT_PATH", "", "", "gl/sub/repo"},
		{"nothing", "", "", nil, "", "", "", "", ""},
		{"jira url from env", "", "", map[string]string{"JIRA_BASE_URL": "https://env.example"}, "", "", "https://env.example", "", ""},
		{"jira url config wins", "", "      connection: {base_url: 'https://cfg.example'}\n", map[string]string{"JIRA_BASE_URL": "https://env.example"}, "", "", "https://cfg.example", "", ""},
		{"ref from env", "", "", map[string]string{"GITHUB_REF_NAME": "release"}, "", "", "", "release", ""},
		{"ref config wins", "outputs:\n  gha-dispatch: {ref: main}\n  gitlab-pipeline: {project: other/p}\n", "", map[string]string{"GITHUB_REF_NAME": "release", "GITHUB_REPOSITORY": "a/b"}, "a/b", "GITHUB_REPOSITORY", "", "main", "other/p"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.WriteTree(t, map[string]string{"config.yaml": base + tc.driverURL + tc.extra})
			c, err := Load(dir, envOf(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			got := []string{c.Repo, c.RepoSource, c.Poll.InputDrivers[0].Connection.BaseURL, c.Outputs.GHADispatch.Ref, c.Outputs.GitLabPipeline.Project}
			want := []string{tc.repo, tc.src, tc.baseURL, tc.ref, tc.glPrj}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestEnvValuesAreChecked(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n"})
	_, err := Load(dir, envOf(map[string]string{"GITHUB_REPOSITORY": "a/../b", "JIRA_BASE_URL": "http://jira.example.com"}))
	strictyamltest.Check(t, err, []strictyamltest.Want{
		{"$GITHUB_REPOSITORY", 0, 0, `".." segment not allowed`},
		{"$JIRA_BASE_URL", 0, 0, "plain http is only allowed for loopback"},
	})
	if got := err.Error(); !strings.HasPrefix(got, "$GITHUB_REPOSITORY: repo ") {
		t.Errorf("rendering without position: %q", got)
	}
}

func TestMissingConfig(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, nil)
	want := filepath.Join(dir, "config.yaml")
	if err == nil || !strings.Contains(err.Error(), "file not found (looked for "+want+")") {
		t.Fatalf("err = %v, want it to name %s", err, want)
	}
}

func TestOversizedConfig(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\n# " + strings.Repeat("x", strictyaml.MaxFileSize) + "\n"})
	_, err := Load(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v", err)
	}
}

func TestAgentSources(t *testing.T) {
	outside := testfs.WriteTree(t, map[string]string{"evil.yaml": okHarness})
	cases := []struct {
		name   string
		source string
		setup  func(t *testing.T, dir string)
		msg    string // "" means accepted
	}{
		{"plain", "h/a.yaml", nil, ""},
		{"dot prefix", "./h/a.yaml", nil, ""},
		{"dotdot", "../x.yaml", nil, `a ".." component is not allowed`},
		{"inner dotdot", "h/../h/a.yaml", nil, `a ".." component is not allowed`},
		{"absolute", "/etc/passwd", nil, "must be relative"},
		{"missing", "h/none.yaml", nil, "does not exist"},
		{"directory", "h", nil, "not a regular file"},
		{"symlink outside", "h/link.yaml", func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(outside, "evil.yaml"), filepath.Join(dir, "h", "link.yaml")); err != nil {
				t.Skip("symlinks unsupported:", err)
			}
		}, "outside the config directory"},
		{"symlinked dir outside", "ext/evil.yaml", func(t *testing.T, dir string) {
			if err := os.Symlink(outside, filepath.Join(dir, "ext")); err != nil {
				t.Skip("symlinks unsupported:", err)
			}
		}, "outside the config directory"},
		{"symlink inside", "h/alias.yaml", func(t *testing.T, dir string) {
			if err := os.Symlink("a.yaml", filepath.Join(dir, "h", "alias.yaml")); err != nil {
				t.Skip("symlinks unsupported:", err)
			}
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.WriteTree(t, map[string]string{
				"config.yaml": "version: 1\nagents:\n  - name: a\n    source: " + tc.source + "\n",
				"h/a.yaml":    okHarness,
			})
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			c, err := Load(dir, nil)
			if tc.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				real, _ := filepath.EvalSymlinks(filepath.Join(dir, "h", "a.yaml"))
				if c.Agents[0].Path != real {
					t.Errorf("Path = %q, want %q", c.Agents[0].Path, real)
				}
				return
			}
			strictyamltest.Check(t, err, []strictyamltest.Want{{"config.yaml", 4, 13, tc.msg}})
		})
	}
}

func TestSymlinkedConfigDir(t *testing.T) {
	real := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\nagents:\n  - {name: a, source: h/a.yaml}\n", "h/a.yaml": okHarness})
	link := filepath.Join(t.TempDir(), "cfg")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if _, err := Load(link, nil); err != nil {
		t.Fatalf("a symlinked config directory must work: %v", err)
	}
}

// The HTTP settings of a jira-poll connection and the cycle deadline are
// read from the file; max_retries: 0 means no retry at all.
func TestConnectionHTTPSettings(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\npoll:\n  cycle_timeout: 45s\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      connection: {timeout: 5s, retry_budget: 20s, max_retries: 0}\n"})
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Poll.InputDrivers[0].Connection
	if got.Timeout != 5*time.Second || got.RetryBudget != 20*time.Second || got.MaxRetries != NoRetries || c.Poll.CycleTimeout != 45*time.Second {
		t.Errorf("connection %+v, cycle_timeout %s", got, c.Poll.CycleTimeout)
	}
}
