package gitlabpoll

import (
	"context"
	"strconv"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
)

// maxPages bounds every listing (100 per page).
const maxPages = 50

// subject is an issue or merge request updated within the window.
type subject struct {
	gitlabevent.Subject
	updated time.Time
}

// Key is the item id: "!" and the merge request's iid, or "#" and the
// issue's (forgepoll.Subject).
func (s subject) Key() string {
	if mr := s.MergeRequest; mr != nil {
		return "!" + strconv.FormatInt(mr.IID, 10)
	}
	return "#" + strconv.FormatInt(s.Issue.IID, 10)
}

// UpdatedAt is the updated_at the listing showed (forgepoll.Subject).
func (s subject) UpdatedAt() time.Time { return s.updated }

func (s subject) authorID() int64 {
	if mr := s.MergeRequest; mr != nil && mr.Author != nil {
		return mr.Author.ID
	}
	if s.Issue != nil && s.Issue.Author != nil {
		return s.Issue.Author.ID
	}
	return 0
}

func (s subject) noteable() (string, int64) {
	if mr := s.MergeRequest; mr != nil {
		return gitlabevent.NoteableMergeRequest, mr.IID
	}
	return gitlabevent.NoteableIssue, s.Issue.IID
}

// change is one change of a subject with its position (its time and the
// note's or label event's id: what gitlab-event confirms for the same
// change) and the acting user.
type change struct {
	gitlabevent.Change
	pos  changepos.Pos
	user int64
}

// subjects lists the merge requests and issues updated after since
// (one call each when nothing changed), oldest update first.
func (p *Poller) subjects(ctx context.Context, since time.Time) ([]subject, error) {
	f := listFilter{updatedAfter: &since, orderBy: "updated_at"}
	mrs, err := gitlabevent.Pages(maxPages, func(lo gitlab.ListOptions) ([]*gitlab.BasicMergeRequest, *gitlab.Response, error) {
		return p.mergeRequests(ctx, lo, f)
	})
	if err != nil {
		return nil, err
	}
	iss, err := gitlabevent.Pages(maxPages, func(lo gitlab.ListOptions) ([]*gitlab.Issue, *gitlab.Response, error) {
		return p.issues(ctx, lo, f)
	})
	if err != nil {
		return nil, err
	}
	return append(mergeRequestSubjects(mrs), issueSubjects(iss)...), nil
}

// changes reads the subject's opening, notes and label events after since.
// Edits, pushes and state changes other than opening are left to the
// webhook path (docs/gitlab.md, "Backstop: gitlab-poll").
func (p *Poller) changes(ctx context.Context, s subject, since time.Time) ([]change, error) {
	noteable, iid := s.noteable()
	raw := map[string]string{gitlabevent.NoteableIssue: "issue", gitlabevent.NoteableMergeRequest: "merge_request"}[noteable]
	var out []change
	if created := createdAt(s); created != nil && created.After(since) {
		out = append(out, change{gitlabevent.Change{Kind: event.Opened, RawType: raw, RawAction: "open"}, changepos.At(created.UTC()), s.authorID()})
	}
	notes, err := p.notes(ctx, noteable, iid)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		if !n.System && n.CreatedAt != nil && n.CreatedAt.After(since) {
			out = append(out, change{gitlabevent.Change{Kind: event.CommentAdded, Note: n, RawType: "note", RawAction: "create"},
				gitlabevent.NotePos(n), n.Author.ID})
		}
	}
	les, err := p.api.LabelEvents(ctx, p.o.Project, noteable, iid)
	if err != nil {
		return nil, err
	}
	p.sawSubject(s, notes, les)
	for _, e := range les {
		if e.CreatedAt == nil || !e.CreatedAt.After(since) {
			continue
		}
		act := map[string]string{"add": "added", "remove": "removed"}[e.Action]
		l := &event.Label{Name: event.Truncate(e.Label.Name, 255), Action: act}
		out = append(out, change{gitlabevent.Change{Kind: event.LabelChanged, Label: l, RawType: raw, RawAction: "update"},
			gitlabevent.LabelEventPos(e), e.User.ID})
	}
	return out, nil
}

func createdAt(s subject) *time.Time {
	if s.MergeRequest != nil {
		return s.MergeRequest.CreatedAt
	}
	return s.Issue.CreatedAt
}

func (p *Poller) notes(ctx context.Context, noteable string, iid int64) ([]*gitlab.Note, error) {
	asc, by := "asc", "created_at"
	return gitlabevent.Pages(maxPages, func(lo gitlab.ListOptions) ([]*gitlab.Note, *gitlab.Response, error) {
		if noteable == gitlabevent.NoteableMergeRequest {
			return p.o.Client.Notes.ListMergeRequestNotes(p.o.Project, iid, &gitlab.ListMergeRequestNotesOptions{
				ListOptions: lo, OrderBy: &by, Sort: &asc}, gitlab.WithContext(ctx))
		}
		return p.o.Client.Notes.ListIssueNotes(p.o.Project, iid, &gitlab.ListIssueNotesOptions{
			ListOptions: lo, OrderBy: &by, Sort: &asc}, gitlab.WithContext(ctx))
	})
}
