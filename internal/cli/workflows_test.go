package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/internal/workflows/gitlabci"
)

func wfCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	app := &App{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(string) string { return "" }}
	code := Run(context.Background(), app, args)
	return code, stdout.String(), stderr.String()
}

func TestWorkflowsGenerateThenCheck(t *testing.T) {
	for _, reusable := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "wf")
		args := []string{"workflows", "generate", "--platform", "github", "--dir", dir, "--fullsend-version", "v1.2.3"}
		if reusable {
			args = append(args, "--reusable")
		}
		code, out, errOut := wfCLI(t, args...)
		if code != 0 || !strings.Contains(out, "wrote "+filepath.Join(dir, "fullsend-run.yml")) {
			t.Fatalf("generate: code %d, out %q, err %q", code, out, errOut)
		}
		wantFiles, wantJobs := "3 files", "3 jobs"
		if reusable {
			wantFiles, wantJobs = "4 files", "4 jobs"
		}
		code, out, errOut = wfCLI(t, "workflows", "check", "--dir", dir)
		if code != 0 || out != "ok: "+wantFiles+", "+wantJobs+" checked\n" {
			t.Fatalf("check: code %d, out %q, err %q", code, out, errOut)
		}
		// Generating again changes nothing.
		code, out, _ = wfCLI(t, args...)
		if code != 0 || strings.Contains(out, "wrote") {
			t.Fatalf("regenerate: code %d, out %q", code, out)
		}
	}
}

func TestWorkflowsCheckReportsFindings(t *testing.T) {
	dir := t.TempDir()
	if code, _, e := wfCLI(t, "workflows", "generate", "--platform", "github", "--dir", dir, "--fullsend-version", "v1.0.0"); code != 0 {
		t.Fatal(e)
	}
	p := filepath.Join(dir, "fullsend-run.yml")
	data, _ := os.ReadFile(p)
	broken := strings.Replace(string(data), "cancel-in-progress: false", "cancel-in-progress: true", 1)
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(broken, "\n") {
		if strings.Contains(l, "cancel-in-progress: true") {
			line = i + 1
		}
	}
	code, out, errOut := wfCLI(t, "workflows", "check", "--dir", dir)
	want := p + ":" + strconv.Itoa(line) + ": job \"run\": cancel-in-progress: true"
	if code != 2 || !strings.HasPrefix(out, want) || !strings.Contains(errOut, "1 finding in") {
		t.Fatalf("code %d, out %q (want prefix %q), err %q", code, out, want, errOut)
	}
	// A regenerate refuses to overwrite the edited file without --force.
	code, _, errOut = wfCLI(t, "workflows", "generate", "--platform", "github", "--dir", dir, "--fullsend-version", "v1.0.0")
	if code != 2 || !strings.Contains(errOut, "use --force") {
		t.Fatalf("regenerate over an edit: code %d, err %q", code, errOut)
	}
	if code, _, _ = wfCLI(t, "workflows", "generate", "--platform", "github", "--dir", dir, "--fullsend-version", "v1.0.0", "--force"); code != 0 {
		t.Fatalf("--force: code %d", code)
	}
	if code, _, _ = wfCLI(t, "workflows", "check", "--dir", dir); code != 0 {
		t.Fatalf("check after --force: code %d", code)
	}
}

// Files without a fullsend job are named as not checked, with the reason,
// and left out of the count; a directory with none checked is exit 2, not
// ok. Counts are singular for one.
func TestWorkflowsCheckSkippedFiles(t *testing.T) {
	const other = "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n"
	const poll = "on: {schedule: [{cron: '*/5 * * * *'}]}\nconcurrency: {group: fullsend-poll, cancel-in-progress: false}\n" +
		"permissions: {}\njobs:\n  poll:\n    runs-on: ubuntu-latest\n    steps:\n" +
		"      - uses: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n" +
		"        with: {path: s, key: 'st-${{ github.run_id }}', restore-keys: st-}\n" +
		"      - run: fullsend poll --state-dir s\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		code  int
		out   []string // stdout lines; with {dir} for the directory
		err   string
	}{
		{"one fullsend file and one other", map[string]string{"ci.yml": other, "poll.yml": poll}, 0,
			[]string{"not checked: {dir}/ci.yml: " + ghactions.NoFullsendJob, "ok: 1 file, 1 job checked"}, ""},
		{"a .gitlab-ci.yml without a fullsend job", map[string]string{".gitlab-ci.yml": "test:\n  script: [make test]\n", "poll.yml": poll}, 0,
			[]string{"not checked: {dir}/.gitlab-ci.yml: " + gitlabci.NoFullsendJob, "ok: 1 file, 1 job checked"}, ""},
		{"nothing to check", map[string]string{"ci.yml": other}, 2,
			[]string{"not checked: {dir}/ci.yml: " + ghactions.NoFullsendJob}, "nothing checked in {dir}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := wfCLI(t, "workflows", "check", "--dir", dir)
			want := strings.ReplaceAll(strings.Join(tc.out, "\n")+"\n", "{dir}", dir)
			if code != tc.code || out != want || !strings.Contains(errOut, strings.ReplaceAll(tc.err, "{dir}", dir)) {
				t.Fatalf("code %d, out %q, err %q; want %d, %q, %q", code, out, errOut, tc.code, want, tc.err)
			}
		})
	}
}

func TestWorkflowsUsageErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown platform", []string{"workflows", "generate", "--platform", "jenkins"}, `--platform "jenkins"`},
		{"no platform", []string{"workflows", "generate"}, "--platform is required"},
		{"bad version", []string{"workflows", "generate", "--platform", "github", "--dir", empty, "--version", "v1;x"}, "--version \"v1;x\""},
		{"missing dir", []string{"workflows", "check", "--dir", filepath.Join(empty, "nope")}, "does not exist"},
		{"empty dir", []string{"workflows", "check", "--dir", empty}, "no .yml or .yaml files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := wfCLI(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.msg) {
				t.Fatalf("code %d, stderr %q, want 2 and %q", code, errOut, tc.msg)
			}
			if strings.Count(errOut, "\n") != 1 {
				t.Fatalf("stderr is not one message: %q", errOut)
			}
		})
	}
}

func TestWorkflowsUnknownSubcommandIsUsageError(t *testing.T) {
	code, _, errs := runCLI(t, "", nil, "workflows", "genrate")
	if code != 2 || !strings.Contains(errs, `unknown command "genrate" for "fullsend workflows"`) {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if code, out, _ := runCLI(t, "", nil, "workflows"); code != 0 || !strings.Contains(out, "generate") {
		t.Fatalf("bare workflows: exit %d, stdout %q", code, out)
	}
}

// The generated GitHub workflows reference the secrets the configuration
// reads and no others; without a configuration they reference no Jira
// secret and say so; a broken or explicitly named but missing
// configuration is exit 2 and writes nothing.
func TestWorkflowsGenerateSecretsFromConfig(t *testing.T) {
	const jira = "version: 1\nrepo: acme/app\npoll:\n  output_driver: gha-dispatch\n  input_drivers:\n" +
		"    - type: jira-poll\n      project: P\n      queries: [\"project = P\"]\n" +
		"      connection: {base_url: \"https://acme.atlassian.net\", token_env: BOT_TOKEN}\n"
	for _, tc := range []struct {
		name    string
		config  string // config.yaml; "" for none
		flag    bool   // pass --config-dir
		code    int
		secrets []string // referenced, sorted
		stderr  string
	}{
		{"jira config", jira, true, 0, []string{"BOT_TOKEN", "GITHUB_TOKEN", "JIRA_USER_EMAIL"}, ""},
		{"no config", "", false, 0, []string{"GITHUB_TOKEN"}, "no configuration found: the workflows pass no Jira secret"},
		{"named config missing", "", true, 2, nil, "config.yaml"},
		{"broken config", "version: 1\npoll: [\n", true, 2, nil, "config.yaml:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, out := filepath.Join(t.TempDir(), ".fullsend"), filepath.Join(t.TempDir(), "wf")
			if tc.config != "" {
				if err := os.MkdirAll(cfg, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cfg, "config.yaml"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"workflows", "generate", "--platform", "github", "--reusable", "--dir", out, "--version", "v1.2.3"}
			if tc.flag {
				args = append(args, "--config-dir", cfg)
			} else {
				t.Chdir(t.TempDir()) // the default .fullsend is absent
			}
			code, _, errOut := wfCLI(t, args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.stderr)
			}
			entries, _ := os.ReadDir(out)
			if tc.code != 0 {
				if len(entries) != 0 {
					t.Fatalf("files written on error: %v", entries)
				}
				return
			}
			var refs []string
			for _, e := range entries {
				data, err := os.ReadFile(filepath.Join(out, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range regexp.MustCompile(`secrets\.([A-Za-z0-9_]+)`).FindAllStringSubmatch(string(data), -1) {
					refs = append(refs, m[1])
				}
			}
			slices.Sort(refs)
			if refs = slices.Compact(refs); !slices.Equal(refs, tc.secrets) {
				t.Fatalf("secrets referenced %v, want %v", refs, tc.secrets)
			}
		})
	}
}
