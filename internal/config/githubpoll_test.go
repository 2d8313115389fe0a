package config

import (
	"fmt"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// TestGitHubPollEntry: a github-poll entry needs no queries, reads its
// lookback, takes its base URL from $GITHUB_API_URL (never
// $JIRA_BASE_URL) and holds no poll locks.
func TestGitHubPollEntry(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"GITHUB_API_URL", map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3", "JIRA_BASE_URL": "https://jira.example.com"}, "https://ghe.example.com/api/v3"},
		{"never JIRA_BASE_URL", map[string]string{"JIRA_BASE_URL": "https://jira.example.com"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\nrepo: acme/platform\nforge: github\npoll:\n  input_drivers:\n    - type: github-poll\n      lookback: 30m\n"})
			c, err := Load(dir, func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			in := c.Poll.InputDrivers[0]
			if in.Type != "github-poll" || in.Lookback != 30*time.Minute || in.Connection.BaseURL != tc.want {
				t.Fatalf("entry %+v, want base URL %q", in, tc.want)
			}
			if in.Grace != DefaultPollGrace {
				t.Errorf("grace %s, want the default %s", in.Grace, DefaultPollGrace)
			}
			if _, ok := c.Poll.LockInput(); ok {
				t.Error("a github-poll entry was taken as the lock input")
			}
		})
	}
}

// TestPollGrace: a forge poller's grace is read as written, 0s included
// (the poller is then the primary path); left out it is 5m.
func TestPollGrace(t *testing.T) {
	cases := []struct {
		typ, line string
		want      time.Duration
	}{
		{"github-poll", "      grace: 0s\n", 0},
		{"gitlab-poll", "      grace: 0s\n", 0},
		{"gitlab-poll", "      grace: 90s\n", 90 * time.Second},
		{"github-poll", "", 5 * time.Minute},
		{"gitlab-poll", "", 5 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.typ+" "+tc.want.String(), func(t *testing.T) {
			dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\nrepo: acme/platform\npoll:\n  input_drivers:\n    - type: " + tc.typ + "\n" + tc.line})
			c, err := Load(dir, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Poll.InputDrivers[0].Grace; got != tc.want {
				t.Fatalf("grace %s, want %s", got, tc.want)
			}
		})
	}
}

// TestPollRequestsPerCycle: a forge poller's requests_per_cycle is read
// as written; left out it is 1000.
func TestPollRequestsPerCycle(t *testing.T) {
	cases := []struct {
		typ, line string
		want      int
	}{
		{"github-poll", "      requests_per_cycle: 250\n", 250},
		{"gitlab-poll", "      requests_per_cycle: 4_000\n", 4000},
		{"github-poll", "", DefaultRequestsPerCycle},
		{"gitlab-poll", "", DefaultRequestsPerCycle},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %d", tc.typ, tc.want), func(t *testing.T) {
			dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\nrepo: acme/platform\npoll:\n  input_drivers:\n    - type: " + tc.typ + "\n" + tc.line})
			c, err := Load(dir, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Poll.InputDrivers[0].RequestsPerCycle; got != tc.want {
				t.Fatalf("requests_per_cycle %d, want %d", got, tc.want)
			}
		})
	}
}
