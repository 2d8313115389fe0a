package cli

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// startGitLabSim starts a GitLab emulator holding acme/platform and returns
// it with its base URL; it is closed, with the default transport's idle
// connections, when the test ends.
func startGitLabSim(t *testing.T) (*gitlabsim.Server, string) {
	t.Helper()
	sim := gitlabsim.New(gitlabsim.Options{Projects: []string{"acme/platform"}})
	base, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		sim.Close()
	})
	return sim, base
}

func TestRunExitsEarlyWhenSupersededOnGitLab(t *testing.T) {
	sim, base := startGitLabSim(t)
	ev, err := os.ReadFile(filepath.Join("..", "..", "examples", "events", "triage-comment.json"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"FULLSEND_RESOURCE_KEY": "k"}
	older, _ := sim.CreatePipeline("acme/platform", "main", vars)
	newer, _ := sim.CreatePipeline("acme/platform", "main", vars)
	cfgDir := filepath.Join("..", "..", "examples", ".fullsend")
	tests := []struct {
		name     string
		pipeline int64
		ran      bool
	}{
		{"superseded run is a no-op", older.ID, false},
		{"newest run starts the agent", newer.ID, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(agentWritableDir(t), "ran")
			env := map[string]string{"GITLAB_API_URL": base, "GITLAB_TOKEN": sim.Token(), "CI_PROJECT_ID": "1",
				"CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_ID": strconv.FormatInt(tc.pipeline, 10),
				"FULLSEND_RESOURCE_KEY": "k", "FULLSEND_AGENT": "triage",
				"FULLSEND_EVENT": base64.StdEncoding.EncodeToString(ev), "PATH": os.Getenv("PATH")}
			code, out, errs := runCLI(t, "", env, "run", "--config-dir", cfgDir, "--log-format", "json", "--", "touch", marker)
			if code != 0 {
				t.Fatalf("exit %d: %q %q", code, out, errs)
			}
			if _, err := os.Stat(marker); (err == nil) != tc.ran {
				t.Fatalf("agent ran = %v, want %v (stderr %q)", err == nil, tc.ran, errs)
			}
		})
	}
}

// agentWritableDir is a fresh directory every user can write to: run as
// root, the examples' harness runs its agent under its own identity.
func agentWritableDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fullsend-agent-out-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}
