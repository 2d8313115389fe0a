package gitlabci

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows/release"
	"github.com/fullsend-dev/fullsend/internal/workflows/release/releasetest"
)

type glJob struct {
	Extends      string            `yaml:"extends"`
	Image        string            `yaml:"image"`
	BeforeScript []string          `yaml:"before_script"`
	Variables    map[string]string `yaml:"variables"`
	Environment  *struct {
		Name   string `yaml:"name"`
		Action string `yaml:"action"`
	} `yaml:"environment"`
}

func decodeJobs(t *testing.T, data []byte) map[string]glJob {
	t.Helper()
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	jobs := map[string]glJob{}
	for name, n := range doc {
		var j glJob
		if n.Kind == yaml.MappingNode && n.Decode(&j) == nil {
			jobs[name] = j
		}
	}
	return jobs
}

// TestAgentJobHasNoGitLabToken: GITLAB_TOKEN reaches jobs only through
// environment scoping; by default only the poll job has an environment.
func TestAgentJobHasNoGitLabToken(t *testing.T) {
	for _, agentToken := range []bool{false, true} {
		files, err := Generate(Options{Install: testPin, AgentToken: agentToken})
		if err != nil {
			t.Fatal(err)
		}
		jobs := decodeJobs(t, files[FileName])
		poll, agent := jobs["fullsend-poll"], jobs["fullsend-agent"]
		if poll.Environment == nil || poll.Environment.Name != PollEnvironment || poll.Environment.Action != "access" {
			t.Fatalf("poll environment = %+v", poll.Environment)
		}
		if got := agent.Environment != nil; got != agentToken {
			t.Fatalf("AgentToken=%v: agent environment = %+v", agentToken, agent.Environment)
		}
		if agentToken && agent.Environment.Name != AgentEnvironment {
			t.Fatalf("agent environment %q", agent.Environment.Name)
		}
		for name, j := range jobs {
			if _, ok := j.Variables["GITLAB_TOKEN"]; ok {
				t.Errorf("job %s sets GITLAB_TOKEN in the file", name)
			}
		}
		if strings.Contains(string(files[FileName]), "$GITLAB_TOKEN") {
			t.Error("the file references $GITLAB_TOKEN")
		}
	}
}

// TestInstallScriptRuns runs the generated before_script with bash against
// a loopback release server.
func TestInstallScriptRuns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wrong   bool
		wantOK  bool
		wantOut string
	}{
		{"verified", false, true, "verified and installed"},
		{"wrong checksum", true, false, "refusing to install"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := releasetest.Serve(t, releasetest.Release{Version: "v1.2.3", WrongChecksum: tc.wrong})
			pin := release.Pin{Mode: release.Download, Version: "v1.2.3", BaseURL: base}
			files, err := Generate(Options{Install: pin})
			if err != nil {
				t.Fatal(err)
			}
			tmpl := decodeJobs(t, files[FileName])[".fullsend-install"]
			var vars struct {
				Variables map[string]string `yaml:"variables"`
			}
			if err := yaml.Unmarshal(files[FileName], &vars); err != nil {
				t.Fatal(err)
			}
			env := []string{"FULLSEND_VERSION=" + vars.Variables["FULLSEND_VERSION"], "FULLSEND_RELEASE_URL=" + vars.Variables["FULLSEND_RELEASE_URL"]}
			res := releasetest.Run(t, strings.Join(tmpl.BeforeScript[:1], "\n"), env...)
			t.Logf("install step took %v", res.Elapsed)
			if (res.Err == nil) != tc.wantOK || !strings.Contains(res.Output, tc.wantOut) {
				t.Fatalf("err %v, output %q", res.Err, res.Output)
			}
			out, err := exec.Command(filepath.Join(res.BinDir, "fullsend")).CombinedOutput()
			if tc.wantOK != (err == nil && strings.Contains(string(out), releasetest.Marker)) {
				t.Fatalf("installed binary: %q %v", out, err)
			}
		})
	}
}
