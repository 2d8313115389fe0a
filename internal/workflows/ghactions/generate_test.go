package ghactions

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows/release"
)

// testPin is the release install the tests generate.
var testPin = release.Pin{Mode: release.Download, Version: "v1.2.3", BaseURL: release.DefaultBaseURL}

// sourcePin builds fullsend from source at a commit.
var sourcePin = release.Pin{Mode: release.Source, Version: "0123abcd0123abcd0123abcd0123abcd0123abcd"}

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenCases are the option sets whose output is kept under testdata/.
var goldenCases = []struct {
	dir  string
	opts Options
}{
	{"direct", Options{Install: testPin, Secrets: jiraSecrets}},
	{"reusable", Options{Install: testPin, Reusable: true, Secrets: jiraSecrets}},
	{"source", Options{Install: sourcePin, Secrets: jiraSecrets}},
}

func TestGenerateGolden(t *testing.T) {
	for _, gc := range goldenCases {
		t.Run(gc.dir, func(t *testing.T) {
			files, err := Generate(gc.opts)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", gc.dir)
			if *update {
				os.RemoveAll(dir)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, data := range files {
					if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(files) {
				t.Fatalf("golden dir has %d files, Generate wrote %d", len(entries), len(files))
			}
			for name, data := range files {
				want, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(data, want) {
					t.Errorf("%s differs from %s (run go test -update)", name, filepath.Join(dir, name))
				}
			}
		})
	}
}

func TestGenerateIsStable(t *testing.T) {
	a, _ := Generate(Options{Install: testPin, Reusable: true})
	b, _ := Generate(Options{Install: testPin, Reusable: true})
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Fatalf("%s differs between two runs", name)
		}
	}
}

// TestGeneratedShape parses the output and checks the facts the scheduling
// rule and the runner rely on.
func TestGeneratedShape(t *testing.T) {
	for _, gc := range goldenCases {
		files, err := Generate(gc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for name := range files {
			names = append(names, name)
		}
		sort.Strings(names)
		want := []string{EventsFile, PollFile, RunFile}
		if gc.opts.Reusable {
			want = []string{EventsFile, PollFile, ReusableFile, RunFile}
		}
		if strings.Join(names, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: files %v, want %v", gc.dir, names, want)
		}
		for name, data := range files {
			var doc map[string]any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatalf("%s/%s does not parse: %v", gc.dir, name, err)
			}
			for _, line := range strings.Split(string(data), "\n") {
				// Inputs reach scripts only through env: (script injection).
				if strings.Contains(line, "run:") && strings.Contains(line, "${{") {
					t.Errorf("%s/%s interpolates an expression into a script: %s", gc.dir, name, line)
				}
			}
		}
		var poll struct {
			Concurrency struct {
				Group  string `yaml:"group"`
				Cancel bool   `yaml:"cancel-in-progress"`
			} `yaml:"concurrency"`
			Permissions map[string]string `yaml:"permissions"`
			Jobs        struct {
				Poll struct {
					Permissions map[string]string `yaml:"permissions"`
				} `yaml:"poll"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(files[PollFile], &poll); err != nil {
			t.Fatal(err)
		}
		// Workflow-level permissions are none; the poll job may dispatch.
		if poll.Concurrency.Group != PollGroup || poll.Concurrency.Cancel || len(poll.Permissions) != 0 ||
			poll.Jobs.Poll.Permissions["actions"] != "write" || len(poll.Jobs.Poll.Permissions) != 2 {
			t.Fatalf("poll workflow = %+v", poll)
		}
		var run struct {
			On struct {
				Dispatch struct {
					Inputs map[string]struct {
						Type string `yaml:"type"`
					} `yaml:"inputs"`
				} `yaml:"workflow_dispatch"`
			} `yaml:"on"`
			Concurrency struct {
				Group string `yaml:"group"`
			} `yaml:"concurrency"`
		}
		if err := yaml.Unmarshal(files[RunFile], &run); err != nil {
			t.Fatal(err)
		}
		if len(run.On.Dispatch.Inputs) != 10 {
			t.Fatalf("%s: run workflow has %d inputs, want 10", gc.dir, len(run.On.Dispatch.Inputs))
		}
		if run.Concurrency.Group != CallerPrefix+"${{ inputs.serialization_key }}" {
			t.Fatalf("%s: run group = %q", gc.dir, run.Concurrency.Group)
		}
	}
}

func TestGenerateRejectsUnsafeOptions(t *testing.T) {
	for _, o := range []Options{
		{}, // no version
		{Install: release.Pin{Mode: release.Source, Version: "v1; rm -rf /"}},                               // shell text
		{Install: release.Pin{Mode: release.Source, Version: "v1\n  evil: true"}},                           // YAML text
		{Install: release.Pin{Mode: release.Download, Version: "v1.2"}},                                     // not a release
		{Install: release.Pin{Mode: release.Download, Version: "v1.2.3"}},                                   // no base URL
		{Install: release.Pin{Mode: release.Download, Version: "v1.2.3", BaseURL: "http://mirror.example"}}, // plain http
		{Install: testPin, GoVersion: "1.26\"x"},                                                            // quote
		{Install: testPin, Cron: "*/5 * * *"},                                                               // four fields
		{Install: testPin, Cron: "*/5 * * * MON"},                                                           // names are not accepted
		{Install: testPin, Cron: "* * * * *"},                                                               // every minute
		{Install: testPin, Cron: "61 * * * *"},                                                              // out of range
		{Install: testPin, RunsOn: "ubuntu latest"},                                                         // space
	} {
		if _, err := Generate(o); err == nil {
			t.Errorf("Generate(%+v) succeeded, want an error", o)
		}
	}
}

// TestGitHubPollPermissions: only with GitHubPoll does the poll job read
// issues and pull requests (the github-poll backstop's listings).
func TestGitHubPollPermissions(t *testing.T) {
	for _, on := range []bool{false, true} {
		opts := goldenCases[0].opts
		opts.GitHubPoll = on
		files, err := Generate(opts)
		if err != nil {
			t.Fatal(err)
		}
		var poll struct {
			Jobs struct {
				Poll struct {
					Permissions map[string]string `yaml:"permissions"`
				} `yaml:"poll"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(files[PollFile], &poll); err != nil {
			t.Fatal(err)
		}
		perms := poll.Jobs.Poll.Permissions
		want := map[string]string{"actions": "write", "contents": "read"}
		if on {
			want["issues"], want["pull-requests"] = "read", "read"
		}
		if len(perms) != len(want) {
			t.Errorf("GitHubPoll=%v: permissions %v, want %v", on, perms, want)
		}
		for k, v := range want {
			if perms[k] != v {
				t.Errorf("GitHubPoll=%v: permission %s = %q, want %q", on, k, perms[k], v)
			}
		}
	}
}
