package cli

import (
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
