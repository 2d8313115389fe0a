// Package githubentity resolves GitHub entities (entity.Resolver): an
// issue (a work item) or a pull request (a change proposal) read through
// go-github on the shared HTTP stack, with its comments, its reviews (pull
// requests), its label applications (issue events "labeled") and its
// description as the activity, each element's actor with its current
// role (the collaborator permission, looked up now). See docs/entities.md,
// "GitHub".
//
// Calls per resolution, from scratch (Resolve): an issue costs the issue
// (1), its comments (1) and its issue events (1); a pull request costs
// the pull request (1), its comments (1), its issue events (1) and its
// reviews (1). A listing longer than PerPage items costs one call per
// page, at most MaxPages+1 (see newest). Then one permission lookup per
// distinct human actor among the elements kept; bots are never looked
// up. With Options.Self, the first resolution of a Resolver also reads
// the token's own account (GET /user, once per Resolver).
package githubentity

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
)

// ErrNoToken: resolving needs a token to read the repository.
var ErrNoToken = errors.New("github entity: no GitHub token: set GITHUB_TOKEN or GH_TOKEN to a token that can read " +
	"the repository's issues, pull requests and collaborator permissions (fine-grained: Issues, Pull requests and " +
	"Metadata read-only; classic: repo, or public_repo for a public repository; a workflow's GITHUB_TOKEN has them)")

// Options configures New. The zero value is usable.
type Options struct {
	// Source is the repository "owner/name" whose issues and pull
	// requests are read; empty means the Ref's repository.
	Source string
	// Permissions answers actors' current roles; nil means
	// ghaevent.NewLookup over the client. A caller that shares one
	// (memoizing) lookup with its event mapping saves the lookups both
	// make.
	Permissions ghaevent.PermissionLookup
	// Own names the tool's own accounts (authorization.bot_accounts, the
	// token's account): what they did is no new version
	// (entity.ComputeVersion). Compared case-insensitively.
	Own []string
	// Self, when set, returns the token's own login (github.Self); it is
	// asked once per Resolver, on the first resolution, and added to Own.
	// A failure fails that resolution and is asked again on the next.
	Self func(ctx context.Context) (string, error)
	// Policy is the retry policy of every read (zero: DefaultPolicy).
	Policy github.Policy
	Log    *slog.Logger
}

// DefaultPolicy retries server errors and rate limits briefly.
var DefaultPolicy = github.Policy{MaxRetries: 2, BaseBackoff: 500 * time.Millisecond, MaxBackoff: 5 * time.Second,
	MaxWait: 10 * time.Second, Idempotent: true}

// Resolver implements entity.Resolver for GitHub. It is safe for
// concurrent use.
type Resolver struct {
	c     *gogithub.Client
	o     Options
	perms ghaevent.PermissionLookup

	mu       sync.Mutex
	own      map[string]bool // lower-cased logins
	selfDone bool
}

var _ entity.Resolver = (*Resolver)(nil)

// New returns a Resolver reading through c (not nil).
func New(c *gogithub.Client, o Options) *Resolver {
	if o.Policy.MaxRetries == 0 && o.Policy.BaseBackoff == 0 { // unset: the default, with the caller's hooks
		d := DefaultPolicy
		d.Sleep, d.OnRetry = o.Policy.Sleep, o.Policy.OnRetry
		o.Policy = d
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	r := &Resolver{c: c, o: o, perms: o.Permissions, own: map[string]bool{}, selfDone: o.Self == nil}
	if r.perms == nil {
		r.perms = ghaevent.NewLookup(c)
	}
	for _, id := range o.Own {
		r.own[strings.ToLower(id)] = true
	}
	return r
}

// FromEnv builds the Resolver of the gha-event path: the API base from
// GITHUB_API_URL, the token from GITHUB_TOKEN or GH_TOKEN (as
// ghaevent.NewFromEnv reads them), the repository read from
// $GITHUB_REPOSITORY (else each Ref's), the tool's own accounts from
// cfg's authorization.bot_accounts (cfg may be nil) plus the token's own
// account (github.Self). Without a token it fails (ErrNoToken).
func FromEnv(cfg *config.Config, getenv func(string) string) (*Resolver, error) {
	env := github.EnvOf(getenv)
	if env.Token == "" {
		return nil, ErrNoToken
	}
	c, err := github.NewClient(env.APIURL, env.Token, github.ClientOptions{})
	if err != nil {
		return nil, err
	}
	o := Options{Source: getenv("GITHUB_REPOSITORY"), Policy: DefaultPolicy}
	if cfg != nil {
		o.Own = cfg.Authorization.BotAccounts
	}
	o.Self = func(ctx context.Context) (string, error) { return github.Self(ctx, c, o.Policy) }
	return New(c, o), nil
}

// Known is what a caller already read of an entity, that Resolve then
// does not read again. Each part is used only when set; a listing (the
// comments, the issue events, the reviews) must then be complete: every
// item the entity has, not a recent window.
type Known struct {
	Issue *gogithub.Issue       // a work item: the issue as the issues API answers it
	Pull  *gogithub.PullRequest // a change proposal: the pull request

	Comments      []*gogithub.IssueComment
	CommentsKnown bool
	Events        []*gogithub.IssueEvent
	EventsKnown   bool
	Reviews       []*gogithub.PullRequestReview
	ReviewsKnown  bool
}

// Resolve implements entity.Resolver: it reads the issue or pull request
// ref names, its activity and its actors' current roles. A ref that
// names nothing on GitHub (404, 410) is an error wrapping
// entity.ErrNotFound; any failed read, including one permission lookup
// (other than a 404: no such account, role none), fails the resolution.
func (r *Resolver) Resolve(ctx context.Context, ref entity.Ref) (*entity.Entity, error) {
	return r.ResolveKnown(ctx, ref, Known{})
}

// ResolveKnown is Resolve reusing what k holds.
func (r *Resolver) ResolveKnown(ctx context.Context, ref entity.Ref, k Known) (*entity.Entity, error) {
	e, err := r.resolve(ctx, ref, k)
	if err != nil {
		return nil, fmt.Errorf("github entity %s: %w", ref, err)
	}
	return e, nil
}

func (r *Resolver) resolve(ctx context.Context, ref entity.Ref, k Known) (*entity.Entity, error) {
	if ref.System != entity.SystemGitHub {
		return nil, fmt.Errorf("not a GitHub entity (system %q)", ref.System)
	}
	if ref.ID < 1 || ref.ID > 1<<31-1 {
		return nil, fmt.Errorf("id %d is not an issue or pull request number", ref.ID)
	}
	src := r.o.Source
	if src == "" {
		src = ref.Repo
	}
	owner, name, err := github.SplitRepo(src)
	if err != nil {
		return nil, err
	}
	p, err := r.read(ctx, owner, name, ref, k)
	if err != nil {
		return nil, err
	}
	own, err := r.ownSet(ctx)
	if err != nil {
		return nil, err
	}
	e, err := build(ref, src, p, func(id string) bool { return own[strings.ToLower(id)] })
	if err != nil {
		return nil, err
	}
	if err := r.roles(ctx, owner, name, e); err != nil {
		return nil, err
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("the entity GitHub's answers give is invalid: %w", err)
	}
	return e, nil
}

// ownSet returns the tool's own accounts, asking Options.Self once.
func (r *Resolver) ownSet(ctx context.Context) (map[string]bool, error) {
	r.mu.Lock()
	done := r.selfDone
	r.mu.Unlock()
	if !done {
		login, err := r.o.Self(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading the token's own account: %w", err)
		}
		r.mu.Lock()
		if login != "" {
			r.own[strings.ToLower(login)] = true
		}
		r.selfDone = true
		r.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.own), nil
}
