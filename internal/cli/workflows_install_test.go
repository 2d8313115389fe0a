package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkflowsGenerateInstallFlags covers the install pin, cron and image
// flags: the test binary is a development build, so without --version a
// release install has nothing to pin.
func TestWorkflowsGenerateInstallFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		want    string // in the generated file (code 0) or stderr (code 2)
		wantOut string // file to read on success
	}{
		{"devel build needs a version", []string{"--platform", "github"}, 2, "--version vX.Y.Z", ""},
		{"devel build, source without version", []string{"--platform", "github", "--install", "source"}, 2, "pass --version", ""},
		{"explicit release", []string{"--platform", "github", "--version", "v1.4.0"}, 0, `FULLSEND_VERSION: "v1.4.0"`, "fullsend-poll.yml"},
		{"source install", []string{"--platform", "github", "--install", "source", "--version", "0123abcd0123abcd0123abcd0123abcd0123abcd"}, 0, "cache: true", "fullsend-poll.yml"},
		{"source install of a tag", []string{"--platform", "gitlab", "--install", "source", "--version", "v1.4.0", "--allow-unpinned-image"}, 0,
			`FULLSEND_VERSION: "v1.4.0"`, ".gitlab-ci.yml"},
		{"source install refuses a branch", []string{"--platform", "github", "--install", "source", "--version", "main"}, 2,
			`--version "main": --install source needs a release tag vX.Y.Z or a full 40-hex commit SHA`, ""},
		{"source install refuses a short sha", []string{"--platform", "gitlab", "--install", "source", "--version", "0123abc", "--allow-unpinned-image"}, 2,
			"full 40-hex commit SHA", ""},
		{"release url", []string{"--platform", "github", "--version", "v1.4.0", "--release-url", "https://mirror.example/fs"}, 0,
			`FULLSEND_RELEASE_URL: "https://mirror.example/fs"`, "fullsend-run.yml"},
		{"every minute", []string{"--platform", "github", "--version", "v1.4.0", "--cron", "* * * * *"}, 2, "--cron: cron \"* * * * *\": fires 1 minute apart", ""},
		{"minute 61", []string{"--platform", "github", "--version", "v1.4.0", "--cron", "61 * * * *"}, 2, "--cron: cron \"61 * * * *\": minute field", ""},
		{"image on github", []string{"--platform", "github", "--version", "v1.4.0", "--image", "x"}, 2, "--image applies to --platform gitlab only", ""},
		{"gitlab unpinned image", []string{"--platform", "gitlab", "--version", "v1.4.0", "--image", "alpine:3"}, 2, "not pinned by digest", ""},
		{"gitlab unpinned image allowed", []string{"--platform", "gitlab", "--version", "v1.4.0", "--image", "alpine:3", "--allow-unpinned-image"}, 0,
			"image: alpine:3", ".gitlab-ci.yml"},
		{"gitlab agent token", []string{"--platform", "gitlab", "--version", "v1.4.0", "--gitlab-agent-token"}, 0, "name: fullsend-agent", ".gitlab-ci.yml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"workflows", "generate", "--dir", dir}, tc.args...)
			code, _, errOut := wfCLI(t, args...)
			if code != tc.code {
				t.Fatalf("code %d, stderr %q", code, errOut)
			}
			if code != 0 {
				if !strings.Contains(errOut, tc.want) {
					t.Fatalf("stderr %q, want %q", errOut, tc.want)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Fatalf("files written on error: %v", entries)
				}
				return
			}
			data, err := os.ReadFile(filepath.Join(dir, tc.wantOut))
			if err != nil || !strings.Contains(string(data), tc.want) {
				t.Fatalf("%s lacks %q (%v)", tc.wantOut, tc.want, err)
			}
		})
	}
}
