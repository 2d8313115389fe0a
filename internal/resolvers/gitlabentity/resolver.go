// Package gitlabentity resolves GitLab issues (work items) and merge
// requests (change proposals) to NormalizedEntity v1 documents
// (entity.Resolver) through client-go clients of internal/gitlab, reusing
// gitlab-event's mapping of users, memberships and merge requests.
//
// One resolution reads (docs/entities.md, "GitLab"):
//
//   - the issue or merge request: 1 call;
//   - its notes, newest first, 100 per page, until 50 that are not system
//     notes were read or the list ends: 1 call for up to 100 notes, at
//     most MaxNotePages;
//   - its resource label events (GitLab lists them oldest first): 1 call
//     for up to 100, otherwise the first page and then the last pages
//     backwards until 50 label applications were read, at most
//     MaxLabelEventPages in all;
//   - for each distinct actor of the kept elements, once: the user (GET
//     /users/:id, for the bot flag) and the membership including inherited
//     ones (GET /projects/:id/members/all/:user_id): 2 calls.
//
// So 3 + 2 × (distinct actors) calls for an issue or merge request with at
// most 100 notes and 100 label events. gitlab-poll builds entities from
// what its detection already read (Build) and adds only the actors'
// lookups it did not make.
package gitlabentity

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
)

// Page caps of one resolution (100 items per page). A listing cut at its
// cap keeps its newest items; the entity is then ActivityTruncated and
// holds only the elements newer than the oldest item read.
const (
	MaxNotePages       = 10
	MaxLabelEventPages = 10
)

// Options configures New.
type Options struct {
	// Project addresses the API reads: a numeric id or a path; empty means
	// the ref's repo.
	Project string
	// Own names the tool's own accounts by username (the configured
	// authorization.bot_accounts; AddOwn adds the token's user when the
	// caller knows it): what they did is no new version
	// (entity.ComputeVersion).
	Own []string
	// Log receives a line when a listing was cut at its page cap.
	Log *slog.Logger
}

// Resolver implements entity.Resolver for GitLab. It is safe for
// concurrent use.
type Resolver struct {
	c   *gitlab.Client
	api *gitlabevent.Lookup
	o   Options
	mu  sync.Mutex
	own map[string]bool
}

var _ entity.Resolver = (*Resolver)(nil)

// New returns a Resolver reading through c.
func New(c *gitlab.Client, o Options) *Resolver {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	r := &Resolver{c: c, api: &gitlabevent.Lookup{Client: c}, o: o, own: map[string]bool{}}
	r.AddOwn(o.Own...)
	return r
}

// FromEnv builds the Resolver of the gitlab-event path: the API URL and
// token as gitlab-event reads them (GITLAB_API_URL, else CI_API_V4_URL;
// GITLAB_TOKEN, read_api suffices), the project CI_PROJECT_ID (else each
// ref's repo), and the configured bot accounts as the tool's own. Missing
// settings are config.Invalid.
func FromEnv(cfg *config.Config, getenv func(string) string) (*Resolver, error) {
	env := gitlabevent.EnvOf(getenv)
	if env.APIURL == "" {
		return nil, config.Invalid(errors.New("gitlab entities: no API URL: set CI_API_V4_URL (inside GitLab CI it is set) or GITLAB_API_URL"))
	}
	c, err := glapi.NewClient(glapi.Options{APIURL: env.APIURL, Token: env.Token})
	if errors.Is(err, glapi.ErrNoToken) {
		return nil, config.Invalid(fmt.Errorf("gitlab entities: %w (read_api is enough)", err))
	}
	if err != nil {
		return nil, config.Invalid(fmt.Errorf("gitlab entities: %w", err))
	}
	o := Options{Project: env.Project}
	if cfg != nil {
		o.Own = cfg.Authorization.BotAccounts
	}
	return New(c, o), nil
}

// AddOwn adds accounts (usernames) to the tool's own.
func (r *Resolver) AddOwn(ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if id != "" {
			r.own[id] = true
		}
	}
}

func (r *Resolver) ownFunc() func(string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	own := make(map[string]bool, len(r.own))
	for k := range r.own {
		own[k] = true
	}
	return func(id string) bool { return own[id] }
}

func (r *Resolver) project(ref entity.Ref) string {
	if r.o.Project != "" {
		return r.o.Project
	}
	return ref.Repo
}

// Resolve implements entity.Resolver: the issue (work_item) or merge
// request (change_proposal) ref names, with its notes, label events and
// each actor's current role. A ref GitLab does not know wraps
// entity.ErrNotFound; any failed read (a membership lookup too) is an
// error, which denies the entity's evaluation.
func (r *Resolver) Resolve(ctx context.Context, ref entity.Ref) (*entity.Entity, error) {
	if err := checkRef(ref); err != nil {
		return nil, err
	}
	project := r.project(ref)
	var s Snapshot
	typ := gitlabevent.NoteableIssue
	var err error
	if ref.Kind == entity.KindChangeProposal {
		typ = gitlabevent.NoteableMergeRequest
		s.MergeRequest, err = r.api.MergeRequest(ctx, project, ref.ID)
	} else {
		s.Issue, err = r.api.Issue(ctx, project, ref.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("gitlab entity %s: reading it: %w", ref, err)
	}
	if s.Issue == nil && s.MergeRequest == nil {
		return nil, fmt.Errorf("gitlab entity %s: %w", ref, entity.ErrNotFound)
	}
	var noteCut, labelCut time.Time
	if s.Notes, noteCut, err = r.notes(ctx, project, typ, ref.ID); err != nil {
		return nil, fmt.Errorf("gitlab entity %s: reading its notes: %w", ref, err)
	}
	if s.LabelEvents, labelCut, err = r.labelEvents(ctx, project, typ, ref.ID); err != nil {
		return nil, fmt.Errorf("gitlab entity %s: reading its label events: %w", ref, err)
	}
	s.Cut = noteCut
	if labelCut.After(s.Cut) {
		s.Cut = labelCut
	}
	if !s.Cut.IsZero() {
		r.o.Log.Info("gitlab entity: older activity left out at the page caps", "entity", ref.String(), "before", s.Cut)
	}
	return r.Build(ctx, ref, s, nil)
}

func checkRef(ref entity.Ref) error {
	switch {
	case ref.System != entity.SystemGitLab:
		return fmt.Errorf("gitlab entity %s: not a GitLab ref", ref)
	case ref.Kind != entity.KindWorkItem && ref.Kind != entity.KindChangeProposal:
		return fmt.Errorf("gitlab entity %s: kind %q: want %s or %s", ref, ref.Kind, entity.KindWorkItem, entity.KindChangeProposal)
	case ref.ID < 1:
		return fmt.Errorf("gitlab entity %s: no iid", ref)
	case ref.Repo == "":
		return fmt.Errorf("gitlab entity %s: no repo", ref)
	}
	return nil
}

// Actor is a user as looked up for their current role: the user (its bot
// flag and username) and their project membership, inherited ones
// included (nil: not a member, external).
type Actor struct {
	User   *gitlab.User
	Member *gitlab.ProjectMember
}

// Build builds the entity ref names from s: its state, the activity
// (after s.Cut, bounded by entity.Bound), each kept element's actor with
// the current role (from known when it holds the user, else looked up
// now, once per distinct user), and the version. The result is
// validated; an invalid one is an error.
func (r *Resolver) Build(ctx context.Context, ref entity.Ref, s Snapshot, known map[int64]Actor) (*entity.Entity, error) {
	project := r.project(ref)
	lookup := func(id int64) (Actor, error) {
		if a, ok := known[id]; ok && a.User != nil {
			return a, nil
		}
		u, err := r.api.User(ctx, id)
		if err != nil {
			return Actor{}, fmt.Errorf("reading user %d: %w", id, err)
		}
		m, err := r.api.Member(ctx, project, id)
		if err != nil {
			return Actor{}, fmt.Errorf("reading the membership of %s in %s: %w", u.Username, project, err)
		}
		return Actor{User: u, Member: m}, nil
	}
	e, err := build(ref, &s, lookup, r.ownFunc())
	if err != nil {
		return nil, fmt.Errorf("gitlab entity %s: %w", ref, err)
	}
	return e, nil
}

// version is e's version over every element after the cut (all;
// entity.VersionOver): the actors of the others than the tool's own that
// it covers are looked up with actor (the kept ones' already were).
func version(e *entity.Entity, all []raw, cut bool, own func(string) bool, actor func(int64) (event.Actor, error)) (string, error) {
	covered := map[[2]string]event.Actor{}
	for _, r := range others(all, own) {
		a, err := actor(r.user)
		if err != nil {
			return "", err
		}
		covered[[2]string{r.el.Kind, r.el.ID}] = a
	}
	els := make([]entity.Element, len(all))
	for i, r := range all {
		els[i] = r.el
		if a, ok := covered[[2]string{r.el.Kind, r.el.ID}]; ok {
			els[i].Actor = a
		}
	}
	return entity.VersionOver(e, els, cut, own), nil
}

// build is Build's mapping, given how to look a user up.
func build(ref entity.Ref, s *Snapshot, lookup func(int64) (Actor, error), own func(string) bool) (*entity.Entity, error) {
	n, err := s.noteable(ref.Repo)
	if err != nil {
		return nil, err
	}
	e, err := skeleton(ref, n)
	if err != nil {
		return nil, err
	}
	rs, err := elements(n, s)
	if err != nil {
		return nil, err
	}
	kept, truncated := bound(rs, s.Cut)
	actors := map[int64]event.Actor{}
	actor := func(user int64) (event.Actor, error) {
		if a, ok := actors[user]; ok {
			return a, nil
		}
		l, err := lookup(user)
		if err != nil {
			return event.Actor{}, err
		}
		if l.User == nil || l.User.Username == "" {
			return event.Actor{}, fmt.Errorf("user %d has no username", user)
		}
		a := gitlabevent.ActorOf(l.User, l.Member, n.author.ID)
		actors[user] = a
		return a, nil
	}
	for _, k := range kept {
		if k.el.Actor, err = actor(k.user); err != nil {
			return nil, err
		}
		e.Activity = append(e.Activity, k.el)
	}
	e.ActivityTruncated = truncated
	if e.Version, err = version(e, afterCut(rs, s.Cut), !s.Cut.IsZero(), own, actor); err != nil {
		return nil, err
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("the built entity is invalid: %w", err)
	}
	return e, nil
}
