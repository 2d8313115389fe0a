package cli

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// No credential reaches stderr, whether it sits in GITHUB_API_URL or in
// the token variable itself.
func TestCredentialsNeverPrinted(t *testing.T) {
	cfgDir := filepath.Join("..", "..", "examples", ".fullsend")
	ev := filepath.Join("..", "..", "examples", "events", "triage-comment.json")
	for _, apiURL := range []string{
		"https://u:T0KEN-in-url@api.example/%zz",
		"https://u:T0KEN-in-url@api example/",
		"https://u:T0KEN-in-url@[::1/",
		"https://u:T0KEN-in-url@api.example/",
	} {
		env := map[string]string{"GITHUB_API_URL": apiURL, "GITHUB_TOKEN": "ghp-T0KEN-in-env"}
		code, out, errs := runCLI(t, "", env, "--config-dir", cfgDir, "--log-level", "debug",
			"dispatch", "--input-file", ev, "--output-driver", "gha-dispatch", "--repo", "acme/platform")
		if code == 0 || !strings.Contains(errs, "GITHUB_API_URL") {
			t.Errorf("%q: exit %d, stderr %s", apiURL, code, errs)
		}
		if strings.Contains(out+errs, "T0KEN") {
			t.Errorf("%q: credentials printed: %s%s", apiURL, out, errs)
		}
	}
}

// A Jira that echoes the credential in its 401/500 answers: nothing the
// command prints (error line, logs at debug, output) shows it.
func TestEchoedJiraCredentialsNeverPrinted(t *testing.T) {
	const tok = "jira-ECHO-s3cret"
	for _, tc := range []struct {
		email  string
		status int
	}{{"bot@example.com", 401}, {"", 401}, {"bot@example.com", 500}, {"", 500}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(`{"errorMessages":["bad credentials: ` + r.Header.Get("Authorization") + `"],"message":"token ` + tok + `"}`))
		}))
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "config.yaml"), "version: 1\nrepo: acme/platform\nagents:\n  - name: triage\n    source: triage.yaml\n"+
			"poll:\n  input_drivers:\n    - type: jira-poll\n      connection:\n        base_url: "+srv.URL+"\n      project: PROJ\n"+
			"      queries:\n        - project = PROJ\n  output_driver: json\n")
		writeFile(t, filepath.Join(dir, "triage.yaml"), "role: triage\ntrigger: 'true'\nrun:\n  command: [\"true\"]\n")
		env := map[string]string{"JIRA_TOKEN": tok, "JIRA_USER_EMAIL": tc.email}
		code, out, errs := runCLI(t, "", env, "--config-dir", dir, "--log-level", "debug", "--log-format", "json", "poll")
		srv.Close()
		basic := base64.StdEncoding.EncodeToString([]byte(tc.email + ":" + tok))
		if code == 0 || !strings.Contains(errs, "bad credentials") {
			t.Errorf("HTTP %d: exit %d, stderr %s", tc.status, code, errs)
		}
		if tc.status == 500 && !strings.Contains(errs, "retrying") {
			t.Errorf("HTTP 500: retries not logged at info: %s", errs)
		}
		if all := out + errs; strings.Contains(all, tok) || strings.Contains(all, basic) {
			t.Errorf("HTTP %d, email %q: credential printed: %s", tc.status, tc.email, all)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
