package jirapoll

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/resolvers/jiraentity"
)

// entityFields are the fields discovery reads besides searchFields once
// the cycle resolves entities (entityStage.want): with them, and with
// what Detect reads (listComments), an item's entity needs no issue read.
var entityFields = []string{"description", "assignee", "resolutiondate"}

// commentField is the field discovery reads for the issues' comments:
// when Jira returns them all inline, Detect lists none (listComments).
const commentField = "comment"

// entityStage is the driver's entity stage (poll.EntityResolver): the
// resolver over the driver's client, and what Detect read of each item
// that an entity can be built from.
type entityStage struct {
	api jiraentity.API       // nil when the driver's client cannot read issues
	res *jiraentity.Resolver // over api

	mu sync.Mutex
	// want is set by the first Entities: from then on discovery
	// reads entityFields, and Detect keeps its reads.
	want bool
	// fields: the latest discovery read entityFields.
	fields bool
	reads  map[string]jira.IssueRead // by item key: what discovery and Detect read (listComments)
}

// newEntityStage builds the stage for d's options.
func newEntityStage(o Options) *entityStage {
	st := &entityStage{want: o.Entities}
	if api, ok := o.API.(jiraentity.API); ok {
		st.api = api
		st.res = jiraentity.New(api, jiraentity.Options{SiteURL: o.SiteURL, Repo: o.Repo, Project: o.Project,
			BotAccounts: o.BotAccounts})
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
	fields := append(slices.Clone(searchFields), commentField)
	if !st.fields {
		return fields
	}
	return append(fields, entityFields...)
}

// inlineCommenter answers a comment listing from an issue's inline
// comment field when it holds all of the issue's comments (*jira.Client).
type inlineCommenter interface {
	CommentsSinceInline(issueKey string, page *jira.CommentPage, since time.Time) (changed, newest []jira.Comment, total int, ok bool)
}

// newestCommenter lists an issue's changed comments and, at no further
// call, its newest page of comments (*jira.Client).
type newestCommenter interface {
	CommentsSinceNewest(ctx context.Context, issueKey string, since time.Time) (changed, newest []jira.Comment, total int, err error)
}

// listComments is Detect's comment listing (the comments after the
// item's checkpoint). Once the cycle resolves entities and discovery read
// their fields, it also keeps, from the same calls, what the item's
// entity is built from: the issue as discovered, the newest page of
// comments and the whole changelog hs (read by Detect): with the newest
// comments the bounded activity is exact, so the entity needs no issue
// read.
func (d *Driver) listComments(ctx context.Context, it *poll.Item, hs []jira.History) ([]jira.Comment, error) {
	st := d.ent
	st.mu.Lock()
	on := st.want && st.fields
	st.mu.Unlock()
	if ic, ok := d.o.API.(inlineCommenter); ok {
		changed, newest, total, whole := ic.CommentsSinceInline(it.ID, d.issue(it.ID).issue.Fields.Comment, it.Base.Min())
		if whole {
			d.keepRead(on, it, newest, total, hs)
			return changed, nil
		}
	}
	nc, ok := d.o.API.(newestCommenter)
	if !on || !ok {
		return d.o.API.CommentsSince(ctx, it.ID, it.Base.Min())
	}
	changed, newest, total, err := nc.CommentsSinceNewest(ctx, it.ID, it.Base.Min())
	if err != nil {
		return nil, err
	}
	d.keepRead(on, it, newest, total, hs)
	return changed, nil
}

// keepRead keeps, when on, what the entity of item it is built from: the issue
// as discovered, its newest comments (total in all) and its changelog hs.
func (d *Driver) keepRead(on bool, it *poll.Item, newest []jira.Comment, total int, hs []jira.History) {
	if !on {
		return
	}
	st := d.ent
	read := jira.IssueRead{Issue: d.issue(it.ID).issue, Comments: newest, CommentsTotal: total, Histories: slices.Clone(hs)}
	st.mu.Lock()
	st.reads[it.ID] = read
	st.mu.Unlock()
}

// EntitySystem implements poll.EntityResolver.
func (d *Driver) EntitySystem() string { return entity.SystemJira }

// Entities implements poll.EntityResolver: it resolves each item's
// entity (jiraentity), concurrently, before it returns the cycle's
// resolver of them: built from what discovery and Detect read (no issue
// read: listComments), else — in the first cycle that resolves
// entities, whose discovery did not read their fields — from one issue
// read with its comments and changelog (jira.Client.ReadIssue). The
// actors' roles are read once per project for the whole batch
// (jiraentity.Roles): one call for the project's roles and one per role.
// The calls go through the driver's client, so Usage (and the cycle's
// stats) count them. An item whose entity cannot be resolved gets the
// error (its evaluation is denied); refused credentials stop the cycle.
// It only reads.
func (d *Driver) Entities(ctx context.Context, items []*poll.Item) (poll.ItemResolver, error) {
	st := d.ent
	st.mu.Lock()
	st.want = true
	st.mu.Unlock()
	r := &resolved{items: map[*poll.Item]resolution{}, refs: map[entity.Ref]*entity.Entity{}}
	if st.api == nil {
		for _, it := range items {
			r.items[it] = resolution{err: fmt.Errorf("%s: the Jira client cannot read issues for entities", Name)}
		}
		return r, nil
	}
	roles := st.res.Roles()
	var stop firstErr
	each(d.o.Concurrency, items, func(it *poll.Item) {
		e, err := d.resolveItem(ctx, it, roles)
		if jira.IsAuth(err) {
			stop.set(apiStop("resolving entities", err))
		}
		r.put(it, e, err)
	})
	if err := stop.get(); err != nil {
		return nil, err
	}
	return r, ctx.Err()
}

// resolution is one item's entity, or why it has none.
type resolution struct {
	e   *entity.Entity
	err error
}

// resolved is the cycle's resolver (poll.ItemResolver): the entities
// Entities resolved, by item and by Ref.
type resolved struct {
	mu    sync.Mutex
	items map[*poll.Item]resolution
	refs  map[entity.Ref]*entity.Entity
}

func (r *resolved) put(it *poll.Item, e *entity.Entity, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items[it] = resolution{e: e, err: err}
	if err == nil && e != nil {
		r.refs[e.Ref()] = e
	}
}

// Ref implements poll.ItemResolver: the Ref of the entity resolved for
// it, else why none was.
func (r *resolved) Ref(it *poll.Item) (entity.Ref, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.items[it]
	switch {
	case res.err != nil:
		return entity.Ref{}, res.err
	case res.e == nil:
		return entity.Ref{}, errors.New("no entity")
	}
	return res.e.Ref(), nil
}

// Resolve implements entity.Resolver over the entities of this cycle.
func (r *resolved) Resolve(_ context.Context, ref entity.Ref) (*entity.Entity, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.refs[ref]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("%s: %s was not resolved in this cycle", Name, ref)
}

// Resolved implements poll.ItemResolver: the receipts are read with the
// issue (receipts.go).
func (r *resolved) Resolved(context.Context, *poll.Item) error { return nil }

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
