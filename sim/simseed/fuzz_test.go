package simseed

import (
	"os"
	"strings"
	"testing"
)

// FuzzParse: any input either parses into a seed whose emulators can be
// built, or is an error; it never panics.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile("../../examples/sim/seed.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(example))
	f.Add(`{"projects":[{"key":"PROJ"}],"issues":[{"project":"PROJ"}]}`)
	f.Add("github:\n  repositories:\n    - {full_name: a/b, collaborators: [{login: x, permission: write}]}\n")
	f.Add("gitlab: {token: t, projects: [a/b], refs: [main]}\njira: {token: 1}\n")
	f.Fuzz(func(t *testing.T, src string) {
		sd, err := Parse(strings.NewReader(src))
		if err != nil {
			return
		}
		if _, err := sd.NewGitHub(); err != nil {
			t.Fatalf("parsed seed does not build the GitHub emulator: %v", err)
		}
		_ = sd.GitLabToken()
		sd.JiraCredentials()
	})
}
