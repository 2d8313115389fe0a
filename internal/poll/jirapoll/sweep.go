package jirapoll

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/jiraentity"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// sweepState is the sweep's position, its resolver and the cadence of
// the scheduled evaluations; the position is guarded by Driver.mu. The
// position and the cadence are kept in the state (state_sweep.go), so
// that one-shot processes walk the whole project and honour
// entity.every.
type sweepState struct {
	on    bool
	after int64 // the keyset position: issue ids after it come next
	// cadence spaces the scheduled evaluations (entity.every); safe for
	// concurrent use on its own.
	cadence reconcile.Cadence
	// res builds the swept entities with the roles of the client's role
	// cache, as events take them (jira.Client.CachedProjectRoleMembers:
	// at most its CacheTTL old, kept in the poller's state). The decision
	// that dispatches resolves the entity afresh, with the roles read then
	// (ResolveEntities).
	res *jiraentity.Resolver
}

// cachedRoles is a client whose project role reads come from its role
// cache.
type cachedRoles struct {
	jiraentity.API
	c interface {
		CachedProjectRoleMembers(ctx context.Context, projectKey string) (map[string][]string, error)
	}
}

func (r cachedRoles) ProjectRoleMembers(ctx context.Context, projectKey string) (map[string][]string, error) {
	return r.c.CachedProjectRoleMembers(ctx, projectKey)
}

// completer turns a searched issue into an entity's read (jira.Client).
type completer interface {
	CompleteIssue(ctx context.Context, is jira.Issue) (jira.IssueRead, error)
}

// EnableSweep implements poll.Sweeper: from now on every discovery also
// reads one page of the sweep.
func (d *Driver) EnableSweep() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweep.on = true
}

// Discover implements poll.Driver: discovery of the changed issues
// (discover), then, with scheduled discovery on (EnableSweep), the sweep.
func (d *Driver) Discover(ctx context.Context) (*poll.Discovery, error) {
	disc, err := d.discover(ctx)
	if err != nil {
		return disc, err
	}
	d.sweepPage(ctx, disc)
	return disc, nil
}

// sweepPage reads the next page of the sweep: the issues of the
// configured queries in issue id order after the last position, M at a
// time, with the entity's fields, the changelog and the lock, lastCheck
// and receipts properties inline (one search), and wraps around after the
// last page. The position is this poller's, kept in its state. Every issue not
// locked and not already eligible becomes a swept candidate with its
// entity built from the search's answer (no issue read; the roles from
// the client's role cache, as events take them), selected after the
// changed issues. A failed sweep is logged and skipped: it is
// an extra, never a condition of the cycle.
func (d *Driver) sweepPage(ctx context.Context, disc *poll.Discovery) {
	d.mu.Lock()
	on, after := d.sweep.on, d.sweep.after
	d.mu.Unlock()
	comp, ok := d.o.API.(completer)
	if !on || !ok || d.ent.res == nil {
		return
	}
	var where []string
	for _, q := range d.o.Queries {
		w, _ := jira.SplitOrderBy(q)
		where = append(where, "("+w+")")
	}
	jql := jira.And(strings.Join(where, " OR "), "id > "+strconv.FormatInt(after, 10)) + " ORDER BY id ASC"
	fields := append(append(append([]string(nil), searchFields...), entityFields...), "comment")
	req := jira.SearchRequest{JQL: jql, Fields: fields, Expand: "changelog",
		Properties: []string{d.lockKey, d.checkKey, d.receiptsKey}, MaxResults: d.o.M}
	issues, err := d.o.API.Search(ctx, req, d.o.M)
	if err != nil {
		d.o.Log.Warn("sweep skipped this cycle: the search failed", "error", err.Error())
		return
	}
	next := int64(0)
	if len(issues) >= d.o.M {
		next, _ = strconv.ParseInt(issues[len(issues)-1].ID, 10, 64)
	}
	d.mu.Lock()
	d.sweep.after = next
	d.mu.Unlock()
	eligible := map[string]bool{}
	for _, it := range disc.Eligible {
		eligible[it.ID] = true
	}
	res := d.sweepResolver()
	if res == nil {
		return
	}
	roles := res.Roles()
	now := d.o.Now()
	for _, is := range issues {
		if eligible[is.Key] {
			continue
		}
		if it := d.swept(ctx, comp, res, is, roles, now); it != nil {
			disc.Swept = append(disc.Swept, it)
		}
	}
}

// swept builds the swept candidate of is; nil when it is locked or its
// entity cannot be built (logged).
func (d *Driver) swept(ctx context.Context, comp completer, res *jiraentity.Resolver, is jira.Issue, roles *jiraentity.Roles, now time.Time) *poll.Item {
	v := d.look(is, now)
	if sweptOut(v) {
		return nil
	}
	read, err := comp.CompleteIssue(ctx, is)
	var e *entity.Entity
	if err == nil {
		e, err = res.FromIssue(ctx, read, d.o.Repo, roles)
	}
	if err != nil {
		d.o.Log.Debug("swept issue skipped: its entity could not be built", "issue", is.Key, "error", err.Error())
		return nil
	}
	it := &poll.Item{ID: is.Key, Cutoff: is.Fields.Updated.Time, Base: v.base, StaleLock: v.expired, TakenOver: v.takeover,
		GoneLocks: v.gone, Receipts: d.receiptsOf(is.Key, is.Properties[d.receiptsKey]), Entity: &entity.Resolution{Entity: e}}
	it.Waiting = now // scheduled work comes after every changed issue in selection
	id, _ := strconv.ParseInt(is.ID, 10, 64)
	d.mu.Lock()
	if d.issues == nil {
		d.issues = map[string]*issueState{}
	}
	d.issues[is.Key] = &issueState{issue: is, id: id}
	d.mu.Unlock()
	return it
}

// sweptOut reports whether an issue so viewed is left out of the sweep:
// locked, or its lock, no longer blocking it, is owed a give-back it
// cannot take yet (no change since, not stale): the runs of that lock may
// still claim it late, and only a takeover, which waits for their claim,
// may replace it (ARCHITECTURE.md, "Give-back").
func sweptOut(v view) bool { return v.locked || v.owed && !v.takeover }

// sweepResolver is the sweep's resolver (sweepState.res), built once;
// nil when the client has no role cache.
func (d *Driver) sweepResolver() *jiraentity.Resolver {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sweep.res == nil {
		api, ok := d.o.API.(jiraentity.API)
		rc, ok2 := d.o.API.(interface {
			CachedProjectRoleMembers(ctx context.Context, projectKey string) (map[string][]string, error)
		})
		if !ok || !ok2 {
			return nil
		}
		d.sweep.res = jiraentity.New(cachedRoles{API: api, c: rc}, jiraentity.Options{SiteURL: d.o.SiteURL, Repo: d.o.Repo,
			Project: d.o.Project, BotAccounts: d.o.BotAccounts})
	}
	return d.sweep.res
}
