package cli

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// `fullsend sim --seed examples/sim/seed.yaml` serves the seeded world of
// all three emulators and prints the environment that reaches them.
func TestSimSeedAllAndExports(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	urls, out, stop := startSimOut(t, 3, "--seed", filepath.Join("..", "..", "examples", "sim", "seed.yaml"))
	line := exportLine(t, out)
	env := map[string]string{}
	for _, kv := range strings.Fields(strings.TrimPrefix(line, "export ")) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	want := map[string]string{
		"JIRA_BASE_URL": urls["jira"], "JIRA_USER_EMAIL": "fullsend-bot@example.com", "JIRA_TOKEN": "sim-token",
		"GITHUB_API_URL": urls["github"] + "/", "GITHUB_TOKEN": "sim-token",
		"GITLAB_API_URL": urls["gitlab"] + "/api/v4", "GITLAB_TOKEN": "sim-token",
	}
	for k, v := range want {
		if env[k] != v || v == "" {
			t.Errorf("export %s=%q, want %q (line %q)", k, env[k], v, line)
		}
	}
	checks := []struct {
		url, token string
		code       int
		body       string
	}{
		{env["JIRA_BASE_URL"] + "/rest/api/3/issue/PROJ-1/comment", "sim-token", 200, "/fs-triage"},
		{env["JIRA_BASE_URL"] + "/rest/api/3/myself", "wrong", 401, ""},
		{env["GITHUB_API_URL"] + "repos/acme/platform/collaborators/alice/permission", "sim-token", 200, `"write"`},
		{env["GITLAB_API_URL"] + "/projects/acme%2Fplatform", "sim-token", 200, `"path_with_namespace":"acme/platform"`},
		{env["GITLAB_API_URL"] + "/projects/acme%2Fplatform", "wrong", 401, ""},
	}
	for _, c := range checks {
		req, _ := http.NewRequest("GET", c.url, nil)
		req.Header.Set("Authorization", "Bearer "+c.token)
		code, body := do(t, req)
		if code != c.code || !strings.Contains(body, c.body) {
			t.Errorf("GET %s (%s): %d %s", c.url, c.token, code, body)
		}
	}
	http.DefaultClient.CloseIdleConnections()
	if code := stop(); code != ExitOK {
		t.Errorf("exit code %d", code)
	}
}

// exportLine waits for the "export …" line sim prints after the URLs.
func exportLine(t *testing.T, out *notifyBuffer) string {
	t.Helper()
	var line string
	out.waitFor(t, func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "export ") && strings.HasSuffix(s, "\n") {
				line = l
				return true
			}
		}
		return false
	})
	return line
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
