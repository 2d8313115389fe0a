package githubpoll

import (
	"context"
	"sync"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
)

// lookups answers gha-event's role and pull request lookups once per
// login and pull request within a cycle.
type lookups struct {
	lk    *ghaevent.Lookup
	mu    sync.Mutex
	roles map[string]answer[string]
	pulls map[int]answer[*gogithub.PullRequest]
}

type answer[T any] struct {
	v   T
	err error
}

func newLookups(c *gogithub.Client) *lookups {
	return &lookups{lk: ghaevent.NewLookup(c), roles: map[string]answer[string]{}, pulls: map[int]answer[*gogithub.PullRequest]{}}
}

// Permission implements ghaevent.PermissionLookup.
func (l *lookups) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	l.mu.Lock()
	a, ok := l.roles[login]
	l.mu.Unlock()
	if !ok {
		a.v, a.err = l.lk.Permission(ctx, owner, repo, login)
		l.mu.Lock()
		l.roles[login] = a
		l.mu.Unlock()
	}
	return a.v, a.err
}

// PullRequest implements ghaevent.PullLookup.
func (l *lookups) PullRequest(ctx context.Context, owner, repo string, n int) (*gogithub.PullRequest, error) {
	l.mu.Lock()
	a, ok := l.pulls[n]
	l.mu.Unlock()
	if !ok {
		a.v, a.err = l.lk.PullRequest(ctx, owner, repo, n)
		l.mu.Lock()
		l.pulls[n] = a
		l.mu.Unlock()
	}
	return a.v, a.err
}

// mapper is gha-event's mapping with the cycle's lookups.
func (p *Poller) mapper(lk *lookups) *ghaevent.Mapper {
	return ghaevent.NewMapper(ghaevent.Options{Repo: p.o.Repo, Permissions: lk, Pulls: lk, Log: p.o.Log})
}
