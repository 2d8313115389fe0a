package ghactions

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows/release"
	"github.com/fullsend-dev/fullsend/internal/workflows/release/releasetest"
)

// ghStep is the part of a generated step the tests read.
type ghStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

type ghWorkflow struct {
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Env         map[string]string `yaml:"env"`
		Secrets     any               `yaml:"secrets"`
		Steps       []ghStep          `yaml:"steps"`
	} `yaml:"jobs"`
}

func decode(t *testing.T, data []byte) ghWorkflow {
	t.Helper()
	var w ghWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

var pinnedUses = regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+(/[a-z0-9-]+)*@[0-9a-f]{40}$`)

// TestGeneratedSecurity checks every generated file for the security rules
// of docs/security.md.
func TestGeneratedSecurity(t *testing.T) {
	for _, gc := range goldenCases {
		files, err := Generate(gc.opts)
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			where := gc.dir + "/" + name
			if strings.Contains(string(data), "secrets: inherit") {
				t.Errorf("%s: secrets: inherit", where)
			}
			for _, l := range strings.Split(string(data), "\n") {
				if u, ok := strings.CutPrefix(strings.TrimSpace(l), "- uses: "); ok && !regexp.MustCompile(` # v\d+\.\d+\.\d+$`).MatchString(u) {
					t.Errorf("%s: uses without a version comment: %s", where, l)
				}
			}
			w := decode(t, data)
			if len(w.Permissions) != 0 || len(w.Env) != 0 {
				t.Errorf("%s: workflow-level permissions %v / env %v", where, w.Permissions, w.Env)
			}
			for id, j := range w.Jobs {
				if j.Permissions["contents"] != "read" {
					t.Errorf("%s: job %s permissions %v", where, id, j.Permissions)
				}
				for k, v := range j.Env {
					if strings.Contains(v, "secrets.") {
						t.Errorf("%s: job %s has secret %s in its env", where, id, k)
					}
				}
				installs := 0
				for _, s := range j.Steps {
					checkStep(t, where, gc.opts.Install, s)
					if strings.HasPrefix(s.Name, "Install fullsend") {
						installs++
					}
				}
				if installs != 1 && j.Steps != nil {
					t.Errorf("%s: job %s has %d install steps", where, id, installs)
				}
			}
		}
	}
}

func checkStep(t *testing.T, where string, pin release.Pin, s ghStep) {
	t.Helper()
	if s.Uses != "" {
		if !pinnedUses.MatchString(s.Uses) {
			t.Errorf("%s: uses %q is not pinned to a commit", where, s.Uses)
		}
		if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != "false" {
			t.Errorf("%s: checkout persists credentials", where)
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") && (pin.Mode != release.Source || s.With["cache"] != "true") {
			t.Errorf("%s: setup-go in mode %s, cache %q", where, pin.Mode, s.With["cache"])
		}
	}
	runsFullsend := strings.HasPrefix(s.Run, "fullsend ") || fullsendRun.MatchString(s.Run)
	hasSecret := false
	for _, v := range s.Env {
		hasSecret = hasSecret || strings.Contains(v, "secrets.")
	}
	if hasSecret != runsFullsend {
		t.Errorf("%s: step %q runs fullsend=%v but gets secrets=%v", where, s.Name, runsFullsend, hasSecret)
	}
	if strings.Contains(s.Run, "go install") && pin.Mode != release.Source {
		t.Errorf("%s: step %q: go install in mode %s", where, s.Name, pin.Mode)
	}
}

func TestPollChecksOutOnlyTheConfigDir(t *testing.T) {
	files, err := Generate(Options{Install: testPin})
	if err != nil {
		t.Fatal(err)
	}
	s := decode(t, files[PollFile]).Jobs["poll"].Steps[0]
	if s.With["sparse-checkout"] != ConfigDir || s.With["persist-credentials"] != "false" {
		t.Fatalf("poll checkout = %+v", s)
	}
}

// installStep returns the install step of the poll job of files.
func installStep(t *testing.T, files map[string][]byte) ghStep {
	t.Helper()
	for _, s := range decode(t, files[PollFile]).Jobs["poll"].Steps {
		if strings.HasPrefix(s.Name, "Install fullsend") {
			return s
		}
	}
	t.Fatal("no install step")
	return ghStep{}
}

// TestInstallStepRuns runs the generated install step with bash against a
// loopback release server: the right checksum installs a working binary,
// a wrong one or a missing archive installs nothing.
func TestInstallStepRuns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rel     releasetest.Release
		version string
		wantOK  bool
		wantOut string
	}{
		{"verified", releasetest.Release{Version: "v1.2.3"}, "v1.2.3", true, "verified and installed"},
		{"wrong checksum", releasetest.Release{Version: "v1.2.3", WrongChecksum: true}, "v1.2.3", false, "refusing to install"},
		{"no such release", releasetest.Release{Version: "v1.2.3"}, "v9.9.9", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := releasetest.Serve(t, tc.rel)
			pin := release.Pin{Mode: release.Download, Version: tc.version, BaseURL: base}
			files, err := Generate(Options{Install: pin})
			if err != nil {
				t.Fatal(err)
			}
			s := installStep(t, files)
			env := []string{"GITHUB_PATH=" + t.TempDir() + "/path"}
			for k, v := range s.Env {
				env = append(env, k+"="+v)
			}
			res := releasetest.Run(t, s.Run, env...)
			t.Logf("install step took %v", res.Elapsed)
			if (res.Err == nil) != tc.wantOK || !strings.Contains(res.Output, tc.wantOut) {
				t.Fatalf("err %v, output %q", res.Err, res.Output)
			}
			out, runErr := runBinary(res.BinDir)
			if tc.wantOK != (runErr == nil && strings.Contains(out, releasetest.Marker)) {
				t.Fatalf("installed binary: %q, %v (want installed=%v)", out, runErr, tc.wantOK)
			}
			if tc.wantOK {
				path, _ := os.ReadFile(strings.TrimPrefix(env[0], "GITHUB_PATH="))
				if strings.TrimSpace(string(path)) != res.BinDir {
					t.Fatalf("GITHUB_PATH = %q, want %q", path, res.BinDir)
				}
			}
		})
	}
}
