package githubpoll

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// TestFromConfig: bad settings are config.Invalid naming the key or
// variable to set; a complete entry connects, and its idle discovery
// costs the three listings.
func TestFromConfig(t *testing.T) {
	cases := []struct {
		name, repo, baseURL string
		env                 map[string]string
		want                string
	}{
		{"no token", repo, "", nil, "$GITHUB_TOKEN and $GH_TOKEN are empty"},
		{"no repo", "", "", map[string]string{"GITHUB_TOKEN": "t"}, "set `repo` in config.yaml or $GITHUB_REPOSITORY"},
		{"bad base URL", repo, "ftp://github.example.com", map[string]string{"GH_TOKEN": "t"}, "connection.base_url"},
		{"plain http off loopback", repo, "http://github.example.com/api/v3", map[string]string{"GH_TOKEN": "t"}, "connection.base_url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{Repo: tc.repo, Poll: config.Poll{InputDrivers: []config.InputDriver{{Type: Name,
				Connection: config.Connection{BaseURL: tc.baseURL}}}}}
			_, err := FromConfig(context.Background(), cfg, 0, poll.InputEnv{Getenv: func(k string) string { return tc.env[k] }})
			if !config.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want config.Invalid containing %q", err, tc.want)
			}
		})
	}
	f := newFixture(t)
	id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: f.base}}
	in, err := build(id, repo, "", token, f.tr, poll.InputEnv{})
	must(t, err)
	acct, err := in.Account(context.Background())
	if err != nil || acct != ActionsBot {
		t.Fatalf("Account = %q, %v; want %s for a token without a user", acct, err, ActionsBot)
	}
	disc, err := in.PollDriver().Discover(context.Background())
	must(t, err)
	if u := in.PollDriver().Usage(); disc.Candidates != 0 || u.Calls != 4 {
		t.Fatalf("idle discovery: %d candidates, %d calls (account included); want 0 and 4", disc.Candidates, u.Calls)
	}
}

// TestAuthFailure: a refused token stops the cycle with an error that
// says so, before anything is dispatched, and Account reports it as
// config.Invalid.
func TestAuthFailure(t *testing.T) {
	f := newFixture(t)
	f.comment(t, f.openIssue(t, false), "/fs-triage")
	gh, err := github.NewClient(f.base, "wrong-token", github.ClientOptions{HTTPClient: &http.Client{Transport: f.tr}})
	must(t, err)
	p, err := New(Options{Client: gh, Repo: repo, Now: f.clk.Now})
	must(t, err)
	_, err = f.run(context.Background(), NewDriver(p, nil))
	var fl *github.Failure
	if !errors.As(err, &fl) || fl.Status != http.StatusUnauthorized {
		t.Fatalf("cycle with a refused token: %v, want the 401", err)
	}
	if len(f.sim.Runs()) != 0 {
		t.Fatalf("%d runs dispatched, want none", len(f.sim.Runs()))
	}
	in := &Input{Driver: NewDriver(p, nil)}
	if _, err := in.Account(context.Background()); !config.IsInvalid(err) {
		t.Fatalf("Account with a refused token: %v, want config.Invalid", err)
	}
}
