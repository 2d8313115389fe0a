// Package jiraentity resolves Jira issues to NormalizedEntity v1
// (docs/entities.md, "Jira"): one issue read with its comments and
// changelog combined (jira.Client.ReadIssue), mapped to the entity's
// identity, state and bounded activity, each element's actor with the
// role its project roles grant now (jira.MapRoles over a fresh read of
// the memberships, shared by one resolution or one batch: Roles).
package jiraentity

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/jira"
)

// API is the part of the Jira client a Resolver uses; *jira.Client
// implements it (through the shared HTTP stack and pacing).
type API interface {
	// ReadIssue reads an issue with its comments and whole changelog.
	ReadIssue(ctx context.Context, idOrKey string) (jira.IssueRead, error)
	// ProjectRoleMembers reads a project's role membership now.
	ProjectRoleMembers(ctx context.Context, projectKey string) (map[string][]string, error)
	// Myself returns the tool's own account (cached by the client).
	Myself(ctx context.Context) (jira.User, error)
}

var _ API = (*jira.Client)(nil)

// Options configure a Resolver.
type Options struct {
	// SiteURL is the Jira site, for the entity's browse URL
	// (https://acme.atlassian.net).
	SiteURL string
	// Repo is the target repository of entities whose Ref names none.
	Repo string
	// Project is the project whose roles grant actors their role, as
	// jira-poll's `project`; empty: each issue's own project.
	Project string
	// BotAccounts are the tool's own accounts besides the client's
	// (authorization.bot_accounts): their elements are bots' and are
	// left out of the version.
	BotAccounts []string
}

// Resolver resolves Jira entities. It implements entity.Resolver and is
// safe for concurrent use.
type Resolver struct {
	api  API
	o    Options
	bots map[string]bool
}

var _ entity.Resolver = (*Resolver)(nil)

// New returns a Resolver reading through c.
func New(c API, o Options) *Resolver {
	o.SiteURL = strings.TrimRight(o.SiteURL, "/")
	bots := make(map[string]bool, len(o.BotAccounts))
	for _, b := range o.BotAccounts {
		bots[b] = true
	}
	return &Resolver{api: c, o: o, bots: bots}
}

// Resolve implements entity.Resolver: one ReadIssue (one call when Jira
// returned the comments and the changelog whole inline, else one more
// comment listing and the changelog pages), the tool's own account
// (cached for the client's life), and a fresh read of the role
// membership of the issue's project (one call for the project's roles,
// one per role) — the roles are the actors' roles at this resolution,
// never older. A ref of another system or kind, an unreadable issue, an
// unmappable answer or a failed role lookup is an error (evaluation is
// denied); an issue Jira does not know wraps entity.ErrNotFound.
func (r *Resolver) Resolve(ctx context.Context, ref entity.Ref) (*entity.Entity, error) {
	if ref.System != entity.SystemJira || ref.Kind != entity.KindWorkItem || ref.ID <= 0 {
		return nil, fmt.Errorf("jira entity: %s is not a Jira work item", ref)
	}
	read, err := r.api.ReadIssue(ctx, strconv.FormatInt(ref.ID, 10))
	if jira.IsNotFound(err) {
		return nil, fmt.Errorf("%w: Jira issue %d: %w", entity.ErrNotFound, ref.ID, err)
	}
	if err != nil {
		return nil, fmt.Errorf("jira entity %s: reading the issue: %w", ref, err)
	}
	repo := ref.Repo
	if repo == "" {
		repo = r.o.Repo
	}
	return r.FromIssue(ctx, read, repo, r.Roles())
}

// errNoAPI is the error of a lookup on a Resolver built without a client.
var errNoAPI = errors.New("jira entity: no Jira client")
