package jirapoll

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
	"github.com/fullsend-dev/fullsend/internal/resolvers/jiraentity"
)

// sweepState is the sweep's position, its resolver and the cadence of
// the scheduled evaluations; the position is guarded by Driver.mu. The
// position and the cadence are kept in the state (state_sweep.go), so
// that one-shot processes walk the whole project and honour
// entity.every.
type sweepState struct {
	// token is the position: the nextPageToken of the page that comes
	// next ("": the first). The sweep pages by Jira's token, not by an
	// `id >` keyset, because what an issue-id comparison means differs
	// between sites (docs/jira.md, "Issue key comparisons").
	token string
	// cadence spaces the scheduled evaluations (entity.every); safe for
	// concurrent use on its own.
	cadence reconcile.Cadence
	// res builds the swept entities with the roles of the client's role
	// cache, as events take them (jira.Client.CachedProjectRoleMembers:
	// at most its CacheTTL old, kept in the poller's state). The decision
	// that dispatches resolves the entity afresh, with the roles read then
	// (Entities).
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

// pager reads one page of a search at a time (jira.Client).
type pager interface {
	SearchPage(ctx context.Context, req jira.SearchRequest, token string) ([]jira.Issue, string, error)
}

var _ poll.Sweeper = (*Driver)(nil) // poll.SweepSwitch

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
// configured queries in creation order (then key), M at a time, with the
// entity's fields, the changelog and the lock, lastCheck and receipts
// properties inline (one search), paged by the search's nextPageToken,
// and starts again from the first page after the last. The position is
// this poller's, kept in its state; a token Jira no longer accepts (it
// keeps them 7 days) starts the round again from the first page, in the
// same cycle. Every issue not locked and not already eligible becomes a
// swept candidate with its entity built from the search's answer (no
// issue read; the roles from the client's role cache, as events take
// them), selected after the changed issues. A failed sweep is logged and
// skipped: it is an extra, never a condition of the cycle.
func (d *Driver) sweepPage(ctx context.Context, disc *poll.Discovery) {
	on := d.SweepOn()
	d.mu.Lock()
	token := d.sweep.token
	d.mu.Unlock()
	comp, ok := d.o.API.(completer)
	pg, ok2 := d.o.API.(pager)
	if !on || !ok || !ok2 || d.ent.res == nil {
		return
	}
	req := d.sweepRequest()
	issues, next, err := pg.SearchPage(ctx, req, token)
	if token != "" && jira.IsBadRequest(err) {
		d.o.Log.Info("sweep: Jira no longer accepts the saved page token; the round starts again from the first page", "error", err.Error())
		issues, next, err = pg.SearchPage(ctx, req, "")
	}
	if err != nil {
		d.o.Log.Warn("sweep skipped this cycle: the search failed", "error", err.Error())
		return
	}
	d.mu.Lock()
	d.sweep.token = next
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

// sweepRequest is the search of every sweep page: the same request each
// time, as a page token asks. Issues created during a round come last
// (creation order); one that leaves or enters the queries while a round
// is under way may make that round read an issue twice or pass one, which
// the next round reads.
func (d *Driver) sweepRequest() jira.SearchRequest {
	var where []string
	for _, q := range d.o.Queries {
		w, _ := jira.SplitOrderBy(q)
		where = append(where, "("+w+")")
	}
	fields := append(append(append([]string(nil), searchFields...), entityFields...), "comment")
	return jira.SearchRequest{JQL: jira.And(strings.Join(where, " OR ")) + " ORDER BY created ASC, key ASC", Fields: fields, Expand: "changelog",
		Properties: []string{d.lockKey, d.checkKey, d.receiptsKey}, MaxResults: d.o.M}
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
