package gitlabci

import (
	"strings"
	"testing"
)

// TestCheckPollState: a job running fullsend poll must keep its state
// directory (inside the project directory) in a cache saved when: always;
// the cache may come from a template or default.
func TestCheckPollState(t *testing.T) {
	const cache = "  cache:\n    - key: s\n      paths: [.fullsend-state/]\n      when: always\n"
	const poll = "  script:\n    - fullsend poll --state-dir .fullsend-state\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"kept", "p:\n" + cache + poll, ""},
		{"a single cache mapping", "p:\n  cache: {key: s, paths: [.fullsend-state], when: always}\n" + poll, ""},
		{"from $CI_PROJECT_DIR", "p:\n" + cache + "  script: [fullsend poll --state-dir=$CI_PROJECT_DIR/.fullsend-state/x]\n", ""},
		{"from a template", ".t:\n" + cache + "p:\n  extends: .t\n" + poll, ""},
		{"from default", "default:\n" + cache + "p:\n" + poll, ""},
		{"no --state-dir", "p:\n" + cache + "  script: [fullsend poll]\n", "without --state-dir inside the project directory"},
		{"outside the project", "p:\n" + cache + "  script: [fullsend poll --state-dir /var/cache/fullsend]\n", "without --state-dir inside"},
		{"no cache", "p:\n" + poll, "no cache: entry keeps"},
		{"another path cached", "p:\n  cache: {key: s, paths: [.cache/], when: always}\n" + poll, "no cache: entry keeps"},
		{"saved on success only", "p:\n  cache: {key: s, paths: [.fullsend-state/]}\n" + poll, "when: always"},
		{"not a poll job", "p:\n  script: [make test]\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := Check(".gitlab-ci.yml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == "" && len(fs) != 0:
				t.Fatalf("findings %v, want none", fs)
			case tc.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Message, tc.want)):
				t.Fatalf("findings %v, want one saying %q", fs, tc.want)
			}
		})
	}
}

// TestGeneratedPollKeepsState: the generated poll job, from a release
// and built from source, passes the check and keeps its state.
func TestGeneratedPollKeepsState(t *testing.T) {
	for _, source := range []bool{false, true} {
		data := generateFor(t, source)
		for _, want := range []string{"--state-dir .fullsend-state", "- .fullsend-state/", "when: always", "key: fullsend-poll-state-$CI_COMMIT_REF_SLUG"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("source=%v: generated file lacks %q", source, want)
			}
		}
		if source && !strings.Contains(string(data), "key: fullsend-go-$FULLSEND_VERSION") {
			t.Error("the poll job's cache list dropped the Go cache of a source install")
		}
		fs, err := Check(FileName, data)
		if err != nil || len(fs) != 0 {
			t.Fatalf("source=%v: findings %v, %v", source, fs, err)
		}
	}
}

// generateFor renders .gitlab-ci.yml from a release or from source.
func generateFor(t *testing.T, source bool) []byte {
	t.Helper()
	o := Options{Install: testPin}
	if source {
		o = schemaVariants["source"]
	}
	files, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return files[FileName]
}
