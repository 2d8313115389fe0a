package jiraentity

import (
	"context"
	"fmt"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
)

// Roles is one point in time of the role lookups: each project's role
// membership is read once, when first needed (jira.ProjectRoleMembers,
// never from an older cache), and every account of that project is
// mapped from it (jira.MapRoles, the mapping jira-poll's events use).
// Share one Roles across the entities of one batch (a poll cycle, a
// sweep) so that they cost one membership read per project; take a new
// one for the next batch so that a demotion shows. Safe for concurrent
// use.
type Roles struct {
	api     API
	mu      sync.Mutex
	members map[string]map[string][]string // project → account → role names
}

// Roles returns a new point in time of role lookups through r's client.
func (r *Resolver) Roles() *Roles {
	return &Roles{api: r.api, members: map[string]map[string][]string{}}
}

// Role is accountID's current role on project. A failed membership read
// is an error (and is read again on the next call).
func (rs *Roles) Role(ctx context.Context, project, accountID string) (event.Role, error) {
	if rs.api == nil {
		return "", errNoAPI
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	m, ok := rs.members[project]
	if !ok {
		var err error
		if m, err = rs.api.ProjectRoleMembers(ctx, project); err != nil {
			return "", fmt.Errorf("reading the roles of project %s: %w", project, err)
		}
		rs.members[project] = m
	}
	return jira.MapRoles(m[accountID]), nil
}
