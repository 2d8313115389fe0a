package gitlabpoll

import (
	"context"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// TestFromConfig: missing settings are config.Invalid naming what is
// missing; a complete entry connects, reads its account and counts calls.
func TestFromConfig(t *testing.T) {
	cases := []struct {
		name    string
		baseURL string
		env     map[string]string
		want    string
	}{
		{"no base URL", "", map[string]string{TokenEnv: "t"}, "no base URL"},
		{"no token", "https://gitlab.example.com/api/v4", nil, "$GITLAB_TOKEN is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{Repo: project, Poll: config.Poll{InputDrivers: []config.InputDriver{{Type: Name,
				Connection: config.Connection{BaseURL: tc.baseURL}}}}}
			_, err := FromConfig(context.Background(), cfg, 0, poll.InputEnv{Getenv: func(k string) string { return tc.env[k] }})
			if !config.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want config.Invalid containing %q", err, tc.want)
			}
		})
	}
	f := newFixture(t)
	f.sim.SetTokenUser(f.alice.ID)
	id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}}
	in, err := build(id, project, project, f.sim.Token(), f.tr, poll.InputEnv{})
	must(t, err)
	acct, err := in.Account(context.Background())
	if err != nil || acct != "alice" {
		t.Fatalf("Account = %q, %v; want alice", acct, err)
	}
	disc, err := in.PollDriver().Discover(context.Background())
	must(t, err)
	if u := in.PollDriver().Usage(); disc.Candidates != 0 || u.Calls != 3 {
		t.Fatalf("idle discovery: %d candidates, %d calls (account included); want 0 and 3", disc.Candidates, u.Calls)
	}
}
