// Package gitlabpoll is the gitlab-poll backstop: it re-reads a GitLab
// project's recent activity (issues and merge requests updated within a
// lookback window, their notes and label events) and dispatches every
// change that no pipeline records yet, so that a change the webhook path
// (gitlab-event) dropped still runs, once. State lives in GitLab: the
// dispatched pipelines carry the idempotency key of their change
// (FULLSEND_IDEMPOTENCY_KEY) and are the record of what was dispatched;
// see ARCHITECTURE.md ("GitLab backstop") and docs/gitlab.md. Driver runs
// it in the shared poll cycle (`fullsend poll`, FromConfig); Poller.Cycle
// runs it with a Dispatcher of the caller's.
package gitlabpoll

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// Name is the driver name.
const Name = "gitlab-poll"

// DefaultLookback is how far back a poller that starts reads activity.
const DefaultLookback = 2 * time.Hour

// DefaultGrace is the Grace of a gitlab-poll entry that sets none.
const DefaultGrace = config.DefaultPollGrace

// Dispatcher plans an event and starts its runs. Each run carries
// changepos.Key(scope key, pos), pos being the change's
// position (time, then the note's or label event's id); a run whose key
// done reports is already dispatched and must be skipped.
type Dispatcher interface {
	Dispatch(ctx context.Context, ev *event.Event, pos changepos.Pos, done func(key string) bool) error
}

// Resolution is the precision of GitLab's timestamps as its API
// documentation gives them (ISO 8601 to the second; its answers carry
// milliseconds): a cycle takes a change only once its second is complete
// on GitLab's clock (changepos.LastComplete), so that a change made later
// in the same second is never skipped, whichever precision GitLab
// answers with.
const Resolution = time.Second

// cutoff is the newest change time a cycle at now takes: older than
// grace, and in a second complete on GitLab's clock.
func (p *Poller) cutoff(now time.Time) time.Time {
	return forgepoll.MinTime(now.Add(-p.o.Grace), changepos.LastComplete(now, Resolution)).UTC()
}

// Options configures New.
type Options struct {
	Client   *gitlab.Client
	Project  string // id or path
	Repo     string // event.repo (config `repo`)
	Lookback time.Duration
	// Grace leaves changes younger than it to the webhook path: a poller
	// acts on a change only once its webhook had time to dispatch it, so
	// the two rarely race (FromConfig: the entry's grace; zero: none).
	Grace time.Duration
	// Now is GitLab's clock (a trackerclock.Clock's Now; nil: time.Now):
	// the window and the grace cutoff are compared with GitLab's times.
	Now      func() time.Time
	Dispatch Dispatcher // used by Cycle; the poll cycle (Driver) dispatches through its output
	Log      *slog.Logger
	// State is where the poller keeps its handled positions and account
	// between processes (state.go; nil: nowhere).
	State *pollstate.Store
}

// Poller runs backstop cycles for one project. It is safe for one cycle
// at a time; concurrent pollers coordinate through the pipeline list.
type Poller struct {
	o       Options
	api     *gitlabevent.Lookup
	keys    *keyIndex
	seen    seen                     // the cycle's reads, for the entity stage (entity.go)
	mu      sync.Mutex               // guards the maps below against SaveState
	handled map[string]time.Time     // subject → updated_at fully handled
	done    map[string]changepos.Pos // subject → newest change position handled (Driver)
	account forgepoll.Account        // the tool's own, as a credential showed it
	// scheduled discovery (records.go, sweep.go)
	own     []string                   // the tool's own usernames
	giveUps forgepoll.GiveUps          // the versions given up on
	older   forgepoll.Older            // "tail@version" → its pipelines older than the window
	ents    forgepoll.Entities[string] // subject → its entity at its updated_at
	sweepAt sweepPos                   // the sweep's next page
}

// New validates o and returns a Poller.
func New(o Options) (*Poller, error) {
	switch {
	case o.Client == nil:
		return nil, errors.New("gitlab-poll: no GitLab client")
	case o.Project == "":
		return nil, errors.New("gitlab-poll: no project: set `project` or config `repo`")
	}
	if o.Lookback <= 0 {
		o.Lookback = DefaultLookback
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Repo == "" {
		o.Repo = o.Project
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	p := &Poller{o: o, api: &gitlabevent.Lookup{Client: o.Client}, handled: map[string]time.Time{},
		done: map[string]changepos.Pos{}, keys: newKeyIndex(o.Client, o.Project)}
	p.restore()
	return p, nil
}

// Stats is what one cycle did.
type Stats struct {
	Candidates int // issues and merge requests updated within the window
	New        int // of them, not yet handled by this poller
	Changes    int // changes read within the window
	Dispatched int // changes handed to the dispatcher (not recorded yet)
	Known      int // changes a pipeline already records
	Deferred   int // changes younger than Grace, left for a later cycle
}

// Cycle reads the window and dispatches what no pipeline records. An
// idle cycle costs two listings. A failure leaves the subject unhandled,
// so the next cycle reads it again (nothing is lost).
func (p *Poller) Cycle(ctx context.Context) (Stats, error) {
	var st Stats
	p.seen.reset()
	if p.o.Dispatch == nil {
		return st, errors.New("gitlab-poll: no dispatcher")
	}
	since := p.o.Now().Add(-p.o.Lookback).UTC()
	subs, err := p.subjects(ctx, since)
	if err != nil {
		return st, err
	}
	st.Candidates = len(subs)
	todo := p.unhandled(subs)
	st.New = len(todo)
	if len(todo) == 0 {
		return st, nil
	}
	if err := p.keys.refresh(ctx, since); err != nil {
		return st, fmt.Errorf("gitlab-poll: reading the dispatched pipelines: %w", err)
	}
	var errs []error
	cutoff := p.cutoff(p.o.Now())
	for _, s := range todo {
		if err := p.handle(ctx, s, since, cutoff, &st); err != nil {
			errs = append(errs, fmt.Errorf("gitlab-poll: %s: %w", s.Key(), err))
			continue
		}
		p.markHandled(s.Key(), s, cutoff)
	}
	p.forget(since)
	return st, errors.Join(errs...)
}

// unhandled are the subjects updated since this poller handled them.
func (p *Poller) unhandled(subs []subject) []subject {
	p.mu.Lock()
	defer p.mu.Unlock()
	var todo []subject
	for _, s := range subs {
		if t, ok := p.handled[s.Key()]; !ok || s.updated.After(t) {
			todo = append(todo, s)
		}
	}
	return todo
}

// forget drops handled subjects that left the window.
func (p *Poller) forget(since time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, t := range p.handled {
		if t.Before(since) {
			delete(p.handled, k)
		}
	}
	for k, pos := range p.done {
		if pos.At.Before(since) {
			delete(p.done, k)
		}
	}
}

// handle dispatches the subject's changes within the window, oldest first.
func (p *Poller) handle(ctx context.Context, s subject, since, cutoff time.Time, st *Stats) error {
	chs, err := p.events(ctx, s, since, nil)
	if err != nil {
		return err
	}
	st.Changes += len(chs)
	for _, c := range chs {
		if c.At.After(cutoff) {
			st.Deferred++
			continue
		}
		if err := c.Event.Validate(); err != nil {
			p.o.Log.Warn("gitlab-poll: skipping an invalid event", "subject", s.Key(), "error", err.Error())
			continue
		}
		known := true
		err = p.o.Dispatch.Dispatch(ctx, c.Event, c.Pos(), func(key string) bool {
			ok := p.keys.has(key)
			known = known && ok
			return ok
		})
		if err != nil {
			return err
		}
		if known {
			st.Known++
		} else {
			st.Dispatched++
		}
	}
	return nil
}

// events reads the subject's changes within the window and maps those at
// a position keep accepts (nil: all) with gitlab-event's mapping, oldest
// first by position (time, then id). Mapping reads the actor's user and
// membership, so a change keep refuses costs nothing more.
func (p *Poller) events(ctx context.Context, s subject, since time.Time, keep func(changepos.Pos) bool) ([]poll.Change, error) {
	all, err := p.changes(ctx, s, since)
	if err != nil {
		return nil, err
	}
	var chs []change
	for _, c := range all {
		if keep == nil || keep(c.pos) {
			chs = append(chs, c)
		}
	}
	sort.SliceStable(chs, func(i, j int) bool { return chs[i].pos.Compare(chs[j].pos) < 0 })
	if mr := s.MergeRequest; mr != nil && len(chs) > 0 && mr.SourceProjectID != 0 && mr.SourceProjectID != mr.TargetProjectID {
		// As gitlab-event does: a fork's path names the head; a failed
		// read leaves it empty and the change proposal a fork either way.
		s.SourceProject, _ = p.api.ProjectPath(ctx, mr.SourceProjectID)
	}
	actors := map[int64]event.Actor{}
	out := make([]poll.Change, 0, len(chs))
	for _, c := range chs {
		actor, ok := actors[c.user]
		if !ok {
			if actor, err = p.actor(ctx, c.user, s.authorID()); err != nil {
				return nil, err
			}
			actors[c.user] = actor
		}
		ev, err := gitlabevent.Build(p.o.Repo, s.Subject, c.Change, actor)
		if err != nil {
			return nil, err
		}
		out = append(out, poll.Change{At: c.pos.At, ID: c.pos.ID, Event: ev})
	}
	return out, nil
}

// actor describes user id as gitlab-event does. A user and membership
// this cycle already read (seen) are not read again.
func (p *Poller) actor(ctx context.Context, id, authorID int64) (event.Actor, error) {
	if known, ok := p.seen.actor(id); ok {
		return gitlabevent.ActorOf(known.User, known.Member, authorID), nil
	}
	u, err := p.api.User(ctx, id)
	if err != nil {
		return event.Actor{}, fmt.Errorf("reading user %d: %w", id, err)
	}
	m, err := p.api.Member(ctx, p.o.Project, id)
	a := gitlabevent.ActorOf(u, m, authorID)
	if err != nil {
		a.Role = event.RoleNone
	} else {
		p.sawActor(u, m)
	}
	return a, nil
}
