package jira

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"sort"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// roleCache is one project's role membership: account id → role names.
type roleCache struct {
	members map[string][]string
	fetched time.Time
}

// Myself returns the authenticated account; the first success is cached for the client's life.
func (c *Client) Myself(ctx context.Context) (User, error) {
	c.mu.Lock()
	if c.myself != nil {
		u := *c.myself
		c.mu.Unlock()
		return u, nil
	}
	c.mu.Unlock()
	cl := call{method: "GET", template: "/rest/api/3/myself", path: "/rest/api/3/myself", retry: true}
	_, raw, err := c.do(ctx, cl)
	if err != nil {
		return User{}, err
	}
	var u User
	if err := decode(cl, raw, &u); err != nil {
		return User{}, err
	}
	if u.AccountID == "" {
		return User{}, fmt.Errorf("jira %s: response has no accountId", cl.endpoint())
	}
	c.mu.Lock()
	c.myself = &u
	c.mu.Unlock()
	return u, nil
}

// RoleOf maps an account's project roles to a NormalizedEvent role:
// Administrators→admin, Developers→write, any other role→read,
// none→external; role membership is cached. Only user actors count: a
// role granted through a group is not resolved (that needs group
// membership lookups) and the account then maps to the next role it holds
// directly, or external.
func (c *Client) RoleOf(ctx context.Context, projectKey, accountID string) (event.Role, error) {
	if !ValidProjectKey(projectKey) {
		return "", fmt.Errorf("jira roles: invalid project key %q", projectKey)
	}
	members, err := c.projectRoles(ctx, projectKey)
	if err != nil {
		return "", err
	}
	return MapRoles(members[accountID]), nil
}

// MapRoles maps Jira project role names to the highest event role:
// Administrators→admin, Developers→write, any other→read, none→external.
func MapRoles(names []string) event.Role {
	best := event.RoleExternal
	for _, n := range names {
		switch n {
		case "Administrators":
			return event.RoleAdmin
		case "Developers":
			best = event.RoleWrite
		default:
			if best == event.RoleExternal {
				best = event.RoleRead
			}
		}
	}
	return best
}

// CachedProjectRoleMembers is ProjectRoleMembers from the role cache
// RoleOf reads (at most Options.CacheTTL old): account id → the role
// names it holds directly.
func (c *Client) CachedProjectRoleMembers(ctx context.Context, projectKey string) (map[string][]string, error) {
	if !ValidProjectKey(projectKey) {
		return nil, fmt.Errorf("jira roles: invalid project key %q", projectKey)
	}
	return c.projectRoles(ctx, projectKey)
}

func (c *Client) projectRoles(ctx context.Context, projectKey string) (map[string][]string, error) {
	c.roleFetch.Lock() // one fetch at a time, so concurrent cold lookups cost one
	defer c.roleFetch.Unlock()
	c.mu.Lock()
	rc, ok := c.roles[projectKey]
	c.mu.Unlock()
	if ok && c.opts.Now().Sub(rc.fetched) < c.opts.CacheTTL {
		return rc.members, nil
	}
	return c.fetchProjectRoles(ctx, projectKey)
}

// fetchProjectRoles reads a project's role membership (one call for the
// roles, one per role) and caches it; c.roleFetch must be held.
func (c *Client) fetchProjectRoles(ctx context.Context, projectKey string) (map[string][]string, error) {
	cl := call{method: "GET", template: "/rest/api/3/project/{projectIdOrKey}/role",
		path: "/rest/api/3/project/" + pathEscape(projectKey) + "/role", retry: true}
	_, raw, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	var roles map[string]string
	if err := decode(cl, raw, &roles); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(roles))
	for n := range roles {
		names = append(names, n)
	}
	sort.Strings(names)
	members := map[string][]string{}
	for _, name := range names {
		u, err := url.Parse(roles[name])
		if err != nil || path.Base(u.Path) == "" {
			return nil, fmt.Errorf("jira %s: role %q has unusable URL", cl.endpoint(), name)
		}
		ids, err := c.roleActors(ctx, projectKey, path.Base(u.Path))
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			members[id] = append(members[id], name)
		}
	}
	c.mu.Lock()
	c.roles[projectKey] = roleCache{members: members, fetched: c.opts.Now()}
	c.mu.Unlock()
	return members, nil
}

func (c *Client) roleActors(ctx context.Context, projectKey, roleID string) ([]string, error) {
	cl := call{method: "GET", template: "/rest/api/3/project/{projectIdOrKey}/role/{id}",
		path: "/rest/api/3/project/" + pathEscape(projectKey) + "/role/" + pathEscape(roleID), retry: true}
	_, raw, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	var role struct {
		Actors []struct {
			ActorUser *struct {
				AccountID string `json:"accountId"`
			} `json:"actorUser"`
		} `json:"actors"`
	}
	if err := decode(cl, raw, &role); err != nil {
		return nil, err
	}
	var ids []string
	for _, a := range role.Actors {
		if a.ActorUser != nil && a.ActorUser.AccountID != "" {
			ids = append(ids, a.ActorUser.AccountID)
		}
	}
	return ids, nil
}

// StatusCategory returns the status category key (new, indeterminate,
// done) of a status id or name; answers are cached for the client's life.
func (c *Client) StatusCategory(ctx context.Context, idOrName string) (string, error) {
	if idOrName == "" {
		return "", fmt.Errorf("jira status: empty id or name")
	}
	c.mu.Lock()
	cat, ok := c.statuses[idOrName]
	c.mu.Unlock()
	if ok {
		return cat, nil
	}
	cl := call{method: "GET", template: "/rest/api/3/status/{idOrName}",
		path: "/rest/api/3/status/" + pathEscape(idOrName), retry: true}
	_, raw, err := c.do(ctx, cl)
	if err != nil {
		return "", err
	}
	var st Status
	if err := decode(cl, raw, &st); err != nil {
		return "", err
	}
	if st.StatusCategory.Key == "" {
		return "", fmt.Errorf("jira %s (%s): response has no statusCategory.key", cl.endpoint(), idOrName)
	}
	c.mu.Lock()
	c.statuses[idOrName] = st.StatusCategory.Key
	c.mu.Unlock()
	return st.StatusCategory.Key, nil
}
