package ghactions

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
)

// jiraSecrets are the secrets of a configuration with one jira-poll input
// on the default variables and no base_url (SecretsFor).
var jiraSecrets = []string{"JIRA_BASE_URL", "JIRA_USER_EMAIL", "JIRA_TOKEN"}

var secretRef = regexp.MustCompile(`secrets\.([A-Za-z0-9_]+)`)

// The generated workflows reference exactly the secrets the configuration
// reads, plus the workflow's own GITHUB_TOKEN, in every variant, and still
// pass the checker.
func TestSecretsFollowConfiguration(t *testing.T) {
	const head = "version: 1\nrepo: acme/app\nforge: github\npoll:\n  output_driver: gha-dispatch\n  input_drivers:\n"
	for _, tc := range []struct {
		name   string
		inputs string
		want   []string
	}{
		{"no poll input", "    []\n", nil},
		{"jira-poll on the defaults", "    - type: jira-poll\n      project: P\n      queries: [\"project = P\"]\n", jiraSecrets},
		{"jira-poll with its base URL in the file", "    - type: jira-poll\n      project: P\n      queries: [\"project = P\"]\n      connection:\n        base_url: https://acme.atlassian.net\n",
			[]string{"JIRA_USER_EMAIL", "JIRA_TOKEN"}},
		{"jira-poll on other variables", "    - type: jira-poll\n      project: P\n      queries: [\"project = P\"]\n      connection:\n        base_url: https://acme.atlassian.net\n" +
			"        email_env: BOT_EMAIL\n        token_env: BOT_JIRA_TOKEN\n", []string{"BOT_EMAIL", "BOT_JIRA_TOKEN"}},
		{"github-poll only", "    - type: github-poll\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(head+tc.inputs), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := config.Load(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := SecretsFor(c)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("SecretsFor = %v, want %v", got, tc.want)
			}
			want := append(slices.Clone(tc.want), "GITHUB_TOKEN")
			slices.Sort(want)
			for _, reusable := range []bool{false, true} {
				files, err := Generate(Options{Install: testPin, Reusable: reusable, Secrets: got})
				if err != nil {
					t.Fatal(err)
				}
				var refs []string
				var set []File
				for name, data := range files {
					for _, m := range secretRef.FindAllStringSubmatch(string(data), -1) {
						refs = append(refs, m[1])
					}
					set = append(set, File{Name: wfDir + name, Data: data})
				}
				slices.Sort(refs)
				if refs = slices.Compact(refs); !slices.Equal(refs, want) {
					t.Errorf("reusable=%v: secrets referenced %v, want %v", reusable, refs, want)
				}
				if rep := Check(set); len(rep.Findings) != 0 {
					t.Errorf("reusable=%v: findings %v", reusable, rep.Findings)
				}
				if reusable && len(tc.want) == 0 && strings.Contains(string(files[ReusableFile]), "secrets:") {
					t.Errorf("reusable workflow declares secrets without any:\n%s", files[ReusableFile])
				}
			}
		})
	}
}

func TestSecretsRefused(t *testing.T) {
	for _, names := range [][]string{{"GITHUB_APP_KEY"}, {"github_x"}, {"1TOKEN"}, {"A-B"}, {"X}} ${{ y"}, {""}} {
		if _, err := Generate(Options{Install: testPin, Secrets: names}); err == nil || !strings.Contains(err.Error(), "secret") {
			t.Errorf("Secrets %q: err = %v, want a refusal naming the secret", names, err)
		}
	}
}
