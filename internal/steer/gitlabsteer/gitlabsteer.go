// Package gitlabsteer is steering on GitLab (docs/steering.md): the
// follow-ups of a run on a GitLab issue or merge request, found from the
// scope's pipelines (GitLab CI: gitlab.ScopeRecords) or the
// records another platform gives (Options.Records: the local executor),
// each note read from the API, mapped by gitlab-event's mapping and
// decided by the caller; the record of a delivered one (the tool's note
// carrying steer.Marker); and the start-up check of a pending pipeline
// (Consumed).
package gitlabsteer

import (
	"context"
	"errors"
	"fmt"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// Options configures a Source.
type Options struct {
	Client       *gl.Client
	Project      string // the item's project (path or id)
	IID          int64
	MergeRequest bool
	Harness      string
	// Own is the active run's change position (FULLSEND_IDEMPOTENCY_KEY).
	Own changepos.Pos
	// Pipelines and Pipeline are the scope's pipeline listing and ours
	// (GitLab CI); Records replaces them on another platform.
	Pipelines *gitlab.ScopeRecords
	Pipeline  int64
	Records   func(ctx context.Context) ([]steer.Record, error)
	// Repo is the events' target repository (config repo).
	Repo   string
	Decide func(ctx context.Context, ev *event.Event) (bool, error)
	Now    func() time.Time
	// Run names this run in its records ("driver/id": steer.RunMarker);
	// "" names none.
	Run string
}

// Source is a steer.Source over one GitLab item.
type Source struct {
	o       Options
	lk      *gitlabevent.Lookup
	decided map[int64]decided
	actors  map[int64]event.Actor
}

type decided struct {
	updated time.Time
	steer   bool
	ev      *event.Event
}

// New returns a Source.
func New(o Options) (*Source, error) {
	if o.Client == nil || o.Project == "" || o.IID < 1 || o.Decide == nil {
		return nil, errors.New("gitlabsteer: a client, a project, an iid and a decision are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Source{o: o, lk: &gitlabevent.Lookup{Client: o.Client}, decided: map[int64]decided{}, actors: map[int64]event.Actor{}}, nil
}

func (s *Source) records(ctx context.Context) ([]steer.Record, error) {
	if s.o.Records != nil {
		return s.o.Records(ctx)
	}
	runs, err := s.o.Pipelines.List(ctx, s.o.Own.At.Add(-time.Second), s.o.Pipeline)
	if err != nil {
		return nil, fmt.Errorf("gitlabsteer: %w", err)
	}
	var out []steer.Record
	for _, r := range runs {
		if p, ok := newest.Change(r.Key); ok && (r.State == newest.Waiting || r.State == newest.Cancelled) {
			out = append(out, steer.Record{Pos: p, Waiting: r.State == newest.Waiting})
		}
	}
	return out, nil
}

// Discover implements steer.Source: the pipeline listing alone while no
// pipeline of the scope waits; else the item's notes (the newest 100),
// the item, and each new note's author and membership, mapped and
// decided.
func (s *Source) Discover(ctx context.Context) ([]steer.Comment, error) {
	recs, err := s.records(ctx)
	if err != nil {
		return nil, err
	}
	pending := false
	for _, r := range recs {
		pending = pending || r.Waiting && r.Pos.After(s.o.Own)
	}
	if !pending {
		return nil, nil
	}
	cs, err := s.comments(ctx)
	if err != nil {
		return nil, err
	}
	return steer.Prefix(s.o.Own, recs, cs), nil
}

// notes lists the item's newest notes, newest first.
func (s *Source) notes(ctx context.Context) ([]*gl.Note, error) {
	sort, by := "desc", "created_at"
	lo := gl.ListOptions{PerPage: 100}
	var ns []*gl.Note
	var err error
	if s.o.MergeRequest {
		ns, _, err = s.o.Client.Notes.ListMergeRequestNotes(s.o.Project, s.o.IID, &gl.ListMergeRequestNotesOptions{
			ListOptions: lo, Sort: &sort, OrderBy: &by}, gl.WithContext(ctx))
	} else {
		ns, _, err = s.o.Client.Notes.ListIssueNotes(s.o.Project, s.o.IID, &gl.ListIssueNotesOptions{
			ListOptions: lo, Sort: &sort, OrderBy: &by}, gl.WithContext(ctx))
	}
	if err != nil {
		return nil, fmt.Errorf("gitlabsteer: listing the notes of %s: %w", s.o.Project, err)
	}
	return ns, nil
}

func (s *Source) comments(ctx context.Context) ([]steer.Comment, error) {
	ns, err := s.notes(ctx)
	if err != nil {
		return nil, err
	}
	var sub *gitlabevent.Subject
	var out []steer.Comment
	for _, n := range ns {
		if n == nil || n.System || n.CreatedAt == nil {
			continue
		}
		p := gitlabevent.NotePos(n)
		if !p.After(s.o.Own) {
			continue
		}
		d, ok := s.decided[n.ID]
		if !ok || n.UpdatedAt != nil && !d.updated.Equal(*n.UpdatedAt) {
			if sub == nil {
				if sub, err = s.subject(ctx); err != nil {
					return nil, err
				}
			}
			d = s.decide(ctx, *sub, n)
			s.decided[n.ID] = d
		}
		sc := steer.Comment{ID: n.ID, Pos: p, Steer: d.steer}
		if d.ev != nil {
			sc.Msg = steer.MessageOf(d.ev, n.ID, noteURL(d.ev, n.ID), s.o.Now())
		}
		out = append(out, sc)
	}
	return out, nil
}

func noteURL(ev *event.Event, id int64) string {
	u := ev.Entity.URL
	if l := ev.Entity.LinkedChangeProposal; l != nil {
		u = l.URL
	}
	return fmt.Sprintf("%s#note_%d", u, id)
}

// subject reads the issue or merge request.
func (s *Source) subject(ctx context.Context) (*gitlabevent.Subject, error) {
	var sub gitlabevent.Subject
	var err error
	if s.o.MergeRequest {
		sub.MergeRequest, err = s.lk.MergeRequest(ctx, s.o.Project, s.o.IID)
	} else {
		sub.Issue, err = s.lk.Issue(ctx, s.o.Project, s.o.IID)
	}
	if err == nil && sub.Issue == nil && sub.MergeRequest == nil {
		err = errors.New("not found")
	}
	if err != nil {
		return nil, fmt.Errorf("gitlabsteer: reading %s %d: %w", s.o.Project, s.o.IID, err)
	}
	return &sub, nil
}

// decide maps note n as gitlab-event does (its author and membership
// read once per run) and decides it; one that does not map, or whose
// author cannot be read, does not steer.
func (s *Source) decide(ctx context.Context, sub gitlabevent.Subject, n *gl.Note) decided {
	d := decided{}
	if n.UpdatedAt != nil {
		d.updated = *n.UpdatedAt
	}
	actor, ok := s.actors[n.Author.ID]
	if !ok {
		u, err := s.lk.User(ctx, n.Author.ID)
		if err != nil {
			return d
		}
		m, err := s.lk.Member(ctx, s.o.Project, n.Author.ID)
		author := int64(0)
		if sub.Issue != nil && sub.Issue.Author != nil {
			author = sub.Issue.Author.ID
		} else if sub.MergeRequest != nil && sub.MergeRequest.Author != nil {
			author = sub.MergeRequest.Author.ID
		}
		actor = gitlabevent.ActorOf(u, m, author)
		if err != nil {
			actor.Role = event.RoleNone
		}
		s.actors[n.Author.ID] = actor
	}
	ev, err := gitlabevent.Build(s.o.Repo, sub, gitlabevent.Change{Kind: event.CommentAdded, Note: n, RawType: "note", RawAction: "create"}, actor)
	if err != nil {
		return d
	}
	if feedback.IsOwn(n.Body) {
		ev.Actor.Kind, ev.Actor.Role = event.ActorBot, event.RoleNone
	}
	ok, err = s.o.Decide(ctx, ev)
	d.steer, d.ev = ok && err == nil, ev
	return d
}

// Record implements steer.Source: the tool's note carrying steer.Marker
// (feedback.GitLab.Comment: not posted again when a recent note carries
// it).
func (s *Source) Record(ctx context.Context, c steer.Comment) error {
	w := &feedback.GitLab{Client: s.o.Client}
	t := feedback.Target{System: event.SystemGitLab, Repo: s.o.Project, Number: s.o.IID, MergeRequest: s.o.MergeRequest}
	_, err := w.Comment(ctx, t, steer.ReplyText(s.o.Harness, c.ID, s.o.Run), steer.Marker(s.o.Harness, c.ID))
	return err
}

// Consumed is the start-up check of a pipeline whose event is note on
// the item: true when a note of the tool's own account (self, a user id)
// among the newest 100 records it as delivered to a run of harness.
func (s *Source) Consumed(ctx context.Context, note, self int64) (bool, error) {
	ns, err := s.notes(ctx)
	if err != nil {
		return false, err
	}
	rs := make([]steer.Reply, 0, len(ns))
	for _, n := range ns {
		if n != nil {
			rs = append(rs, steer.Reply{Author: fmt.Sprint(n.Author.ID), Body: n.Body})
		}
	}
	return steer.Consumed(rs, fmt.Sprint(self), s.o.Harness, note), nil
}
