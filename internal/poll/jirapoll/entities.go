package jirapoll

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/jiraentity"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// entityFields are the fields discovery reads besides searchFields once
// the cycle resolves entities (entityStage.want): with them, and with
// what Detect reads, an item's entity needs no issue read.
var entityFields = []string{"description", "assignee", "resolutiondate"}

// entityStage is the driver's entity stage (poll.EntityResolver): the
// resolver over the driver's client, and what Detect read of each item
// that an entity can be built from.
type entityStage struct {
	api jiraentity.API       // nil when the driver's client cannot read issues
	res *jiraentity.Resolver // over api

	mu sync.Mutex
	// want is set by the first ResolveEntities: from then on discovery
	// reads entityFields, and Detect keeps its reads.
	want bool
	// fields: the latest discovery read entityFields.
	fields bool
	reads  map[string]jira.IssueRead // by item key: Detect's complete reads
}

// newEntityStage builds the stage for d's options.
func newEntityStage(o Options) *entityStage {
	st := &entityStage{}
	if api, ok := o.API.(jiraentity.API); ok {
		st.api = api
		st.res = jiraentity.New(api, jiraentity.Options{SiteURL: o.SiteURL, Repo: o.Repo, Project: o.Project,
			BotAccounts: o.BotAccounts, Log: o.Log})
	}
	return st
}

// begin starts a discovery: it reads entityFields from now on when the
// cycle resolves entities, and forgets the previous cycle's reads.
func (st *entityStage) begin() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.fields, st.reads = st.want, map[string]jira.IssueRead{}
}

// searchFields is the field list of this discovery's searches.
func (st *entityStage) searchFields() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.fields {
		return searchFields
	}
	return append(slices.Clone(searchFields), entityFields...)
}

// detected keeps what Detect read of an item when it is all an entity
// needs: discovery's fields with entityFields, the whole changelog, and
// every comment (a detection from the issue's creation lists them all;
// one from a checkpoint stops at it).
func (d *Driver) detected(it *poll.Item, hs []jira.History, cs []jira.Comment) {
	st := d.ent
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.want || !st.fields || !it.Base.Min().IsZero() {
		return
	}
	st.reads[it.ID] = jira.IssueRead{Issue: d.issue(it.ID).issue, Comments: slices.Clone(cs), CommentsTotal: len(cs),
		Histories: slices.Clone(hs)}
}

// EntitySystem implements poll.EntityResolver.
func (d *Driver) EntitySystem() string { return entity.SystemJira }

// ResolveEntities implements poll.EntityResolver: each item's entity
// (jiraentity), built from what Detect read when that was complete (no
// issue read), else from one issue read with its comments and changelog
// (jira.Client.ReadIssue). The actors' roles are read once per project
// for the whole batch (jiraentity.Roles): one call for the project's
// roles and one per role. The calls go through the driver's client, so
// Usage (and the cycle's stats) count them. An item whose entity cannot
// be resolved gets the error (its evaluation is denied); refused
// credentials stop the cycle. It only reads.
func (d *Driver) ResolveEntities(ctx context.Context, items []*poll.Item) error {
	st := d.ent
	st.mu.Lock()
	st.want = true
	st.mu.Unlock()
	if st.api == nil {
		for _, it := range items {
			it.Entity = &entity.Resolution{Err: fmt.Errorf("%s: the Jira client cannot read issues for entities", Name)}
		}
		return nil
	}
	roles := st.res.Roles()
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		e, err := d.resolveItem(ctx, it, roles)
		if jira.IsAuth(err) {
			stop.set(apiStop("resolving entities", err))
		}
		it.Entity = &entity.Resolution{Entity: e, Err: err}
	})
	if err := stop.get(); err != nil {
		return err
	}
	return ctx.Err()
}

// resolveItem builds one item's entity.
func (d *Driver) resolveItem(ctx context.Context, it *poll.Item, roles *jiraentity.Roles) (*entity.Entity, error) {
	st := d.ent
	st.mu.Lock()
	read, ok := st.reads[it.ID]
	st.mu.Unlock()
	if !ok {
		var err error
		if read, err = st.api.ReadIssue(ctx, it.ID); err != nil {
			return nil, fmt.Errorf("reading %s for its entity: %w", it.ID, err)
		}
	}
	return st.res.FromIssue(ctx, read, d.o.Repo, roles)
}

var _ poll.EntityResolver = (*Driver)(nil)
