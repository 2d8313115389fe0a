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
	roles memo[string, string]
	pulls memo[int, *gogithub.PullRequest]
	// reviews of each pull request (reviewsOf)
	reviews memo[int, []*gogithub.PullRequestReview]
}

func newLookups(c *gogithub.Client) *lookups { return &lookups{lk: ghaevent.NewLookup(c)} }

// Permission implements ghaevent.PermissionLookup.
func (l *lookups) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	return l.roles.get(login, func() (string, error) { return l.lk.Permission(ctx, owner, repo, login) })
}

// PullRequest implements ghaevent.PullLookup.
func (l *lookups) PullRequest(ctx context.Context, owner, repo string, n int) (*gogithub.PullRequest, error) {
	return l.pulls.get(n, func() (*gogithub.PullRequest, error) { return l.lk.PullRequest(ctx, owner, repo, n) })
}

// memo remembers the first answer of f per key (errors included).
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]answer[V]
}

type answer[V any] struct {
	v   V
	err error
}

func (m *memo[K, V]) get(k K, f func() (V, error)) (V, error) {
	m.mu.Lock()
	a, ok := m.m[k]
	m.mu.Unlock()
	if !ok {
		a.v, a.err = f()
		m.mu.Lock()
		if m.m == nil {
			m.m = map[K]answer[V]{}
		}
		m.m[k] = a
		m.mu.Unlock()
	}
	return a.v, a.err
}

// mapper is gha-event's mapping with the cycle's lookups.
func (p *Poller) mapper(lk *lookups) *ghaevent.Mapper {
	return ghaevent.NewMapper(ghaevent.Options{Repo: p.o.Repo, Permissions: lk, Pulls: lk, Log: p.o.Log})
}
