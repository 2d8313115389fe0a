package githubpoll

import (
	"context"
	"net/http"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestAccountByTokenKind: the tool's own account is the personal token's
// login (GET /user answers 200) and the Actions bot for an installation
// token (GET /user answers 403), as GitHub answers each kind.
func TestAccountByTokenKind(t *testing.T) {
	s := githubsim.New(githubsim.Options{Login: "fullsend-ci", Repos: []githubsim.Repo{{FullName: repo}}})
	base, err := s.Start()
	must(t, err)
	tr := &http.Transport{}
	t.Cleanup(func() { tr.CloseIdleConnections(); s.Close() })
	for _, tc := range []struct{ token, want string }{
		{"ghp_classicPersonalToken", "fullsend-ci"},
		{"github_pat_fineGrained", "fullsend-ci"},
		{"ghs_installationToken", ActionsBot},
	} {
		id := config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: base}}
		in, err := build(id, repo, "", tc.token, tr, poll.InputEnv{})
		must(t, err)
		before := s.Calls(githubsim.EndpointUser)
		acct, err := in.Account(context.Background())
		if err != nil || acct != tc.want {
			t.Errorf("token %s: Account = %q, %v; want %q", tc.token, acct, err, tc.want)
		}
		if s.Calls(githubsim.EndpointUser) != before+1 {
			t.Errorf("token %s: %d GET /user calls, want 1", tc.token, s.Calls(githubsim.EndpointUser)-before)
		}
	}
}
