package ghaevent

import (
	"context"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/github"
)

// PermissionLookup returns a user's role on a repository: one of admin,
// maintain, write, triage, read, none (anything else is treated as none).
type PermissionLookup interface {
	Permission(ctx context.Context, owner, repo, login string) (string, error)
}

// PullLookup fetches a pull request; issue_comment payloads on pull
// requests do not carry the head and base, so the driver asks for them.
type PullLookup interface {
	PullRequest(ctx context.Context, owner, repo string, number int) (*gogithub.PullRequest, error)
}

// Lookup implements PermissionLookup and PullLookup over go-github
// (GET /repos/{o}/{r}/collaborators/{user}/permission and
// GET /repos/{o}/{r}/pulls/{n}), retrying server errors and rate limits.
type Lookup struct {
	Client *gogithub.Client
	Policy github.Policy
}

// NewLookup returns a Lookup with a short retry policy.
func NewLookup(c *gogithub.Client) *Lookup {
	return &Lookup{Client: c, Policy: github.Policy{MaxRetries: 2, BaseBackoff: 500 * time.Millisecond,
		MaxBackoff: 2 * time.Second, MaxWait: 10 * time.Second, Idempotent: true}}
}

// Permission returns the user's role: the role_name when it is one of the
// built-in roles, else the legacy permission field (custom roles report
// their base permission there).
func (l *Lookup) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	p, _, err := github.CallFor(ctx, l.Policy, func(ctx context.Context) (*gogithub.RepositoryPermissionLevel, *gogithub.Response, error) {
		return l.Client.Repositories.GetPermissionLevel(ctx, owner, repo, login)
	})
	if err != nil {
		return "", err
	}
	if r := p.GetRoleName(); knownRole(r) {
		return r, nil
	}
	return p.GetPermission(), nil
}

// PullRequest fetches pull request number.
func (l *Lookup) PullRequest(ctx context.Context, owner, repo string, number int) (*gogithub.PullRequest, error) {
	pr, _, err := github.CallFor(ctx, l.Policy, func(ctx context.Context) (*gogithub.PullRequest, *gogithub.Response, error) {
		return l.Client.PullRequests.Get(ctx, owner, repo, number)
	})
	return pr, err
}

// knownRole reports whether r names one of GitHub's built-in repository
// roles. They carry the names of the event roles, except external, which
// is not a GitHub role.
func knownRole(r string) bool {
	role, err := event.ParseRole(r)
	return err == nil && role != event.RoleExternal
}
