package gitlabevent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/input"
)

// API is what the driver reads from GitLab to confirm a webhook body.
// project is a numeric id or a path. Member returns nil, nil when the user
// is not a member of the project.
type API interface {
	Issue(ctx context.Context, project string, iid int64) (*gitlab.Issue, error)
	MergeRequest(ctx context.Context, project string, iid int64) (*gitlab.MergeRequest, error)
	Note(ctx context.Context, project, noteable string, iid, id int64) (*gitlab.Note, error)
	LabelEvents(ctx context.Context, project, noteable string, iid int64) ([]*gitlab.LabelEvent, error)
	StateEvents(ctx context.Context, project, noteable string, iid int64) ([]*gitlab.StateEvent, error)
	Member(ctx context.Context, project string, userID int64) (*gitlab.ProjectMember, error)
	User(ctx context.Context, id int64) (*gitlab.User, error)
	ProjectPath(ctx context.Context, id int64) (string, error)
}

// ErrNotConfirmed marks a webhook body that GitLab does not confirm: a
// field differs from what the API returns, or the object does not exist.
var ErrNotConfirmed = errors.New("the payload does not match GitLab")

// ErrUnavailable marks a failed API read (after retries): the payload could
// not be confirmed either way.
var ErrUnavailable = fmt.Errorf("GitLab API: %w", input.ErrUnavailable)

// unavailable wraps an API read error.
func unavailable(what string, err error) error {
	return fmt.Errorf("%w: reading %s: %w", ErrUnavailable, what, err)
}

// mismatch builds an ErrNotConfirmed naming the field.
func mismatch(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrNotConfirmed, field, fmt.Sprintf(format, a...))
}

// verified is what the API confirmed about a claim.
type verified struct {
	subject   Subject
	note      *gitlab.Note
	user      *gitlab.User
	member    *gitlab.ProjectMember // nil: not a member, or memberErr
	memberErr error
	authorID  int64
	// pos is the change's position on GitLab's clock, the one a poller
	// detects for it too: a note's or label event's creation and id, an
	// opening's creation, else the subject's last update (no id).
	pos changepos.Pos
}

// verify re-reads the subject, the note and the acting user and compares
// them with the claim. project addresses the API (id or path).
func verify(ctx context.Context, api API, project string, c *Claim) (*verified, error) {
	path, err := api.ProjectPath(ctx, c.ProjectID)
	if err != nil {
		return nil, unavailable(fmt.Sprintf("project %d", c.ProjectID), err)
	}
	if !strings.EqualFold(path, c.Project) {
		return nil, mismatch("project.path_with_namespace", "payload says %q, GitLab says project %d is %q", c.Project, c.ProjectID, path)
	}
	v := &verified{}
	if c.Noteable == NoteableMergeRequest {
		err = v.mergeRequest(ctx, api, project, c)
	} else {
		err = v.issue(ctx, api, project, c)
	}
	if err != nil {
		return nil, err
	}
	actorID := c.UserID
	if c.Transition == event.CommentAdded {
		if err := v.checkNote(ctx, api, project, c); err != nil {
			return nil, err
		}
		actorID = v.note.Author.ID
	} else if err := v.checkEntity(ctx, api, project, c); err != nil {
		return nil, err
	}
	if v.user, err = api.User(ctx, actorID); err != nil {
		return nil, unavailable(fmt.Sprintf("user %d", actorID), err)
	}
	if v.user.Username != c.Username {
		return nil, mismatch("user.username", "payload says %q, GitLab says %q", c.Username, v.user.Username)
	}
	v.member, v.memberErr = api.Member(ctx, project, actorID)
	v.pos = v.changePos(c)
	return v, nil
}

func (v *verified) issue(ctx context.Context, api API, project string, c *Claim) error {
	is, err := api.Issue(ctx, project, c.IID)
	if err != nil {
		return unavailable(fmt.Sprintf("issue %d", c.IID), err)
	}
	if is == nil || is.IID != c.IID {
		return mismatch("iid", "GitLab has no issue %d", c.IID)
	}
	v.subject.Issue = is
	if is.Author != nil {
		v.authorID = is.Author.ID
	}
	return nil
}

func (v *verified) mergeRequest(ctx context.Context, api API, project string, c *Claim) error {
	mr, err := api.MergeRequest(ctx, project, c.IID)
	if err != nil {
		return unavailable(fmt.Sprintf("merge request %d", c.IID), err)
	}
	if mr == nil || mr.IID != c.IID {
		return mismatch("iid", "GitLab has no merge request %d", c.IID)
	}
	v.subject.MergeRequest = mr
	if mr.Author != nil {
		v.authorID = mr.Author.ID
	}
	if mr.SourceProjectID != 0 && mr.SourceProjectID != mr.TargetProjectID {
		// A fork's path only names the head; a failed read leaves it empty
		// and the change proposal is a fork either way.
		v.subject.SourceProject, _ = api.ProjectPath(ctx, mr.SourceProjectID)
	}
	return nil
}

func (v *verified) checkNote(ctx context.Context, api API, project string, c *Claim) error {
	n, err := api.Note(ctx, project, c.Noteable, c.IID, c.NoteID)
	if err != nil {
		return unavailable(fmt.Sprintf("note %d", c.NoteID), err)
	}
	switch {
	case n == nil || n.ID != c.NoteID:
		return mismatch("object_attributes.id", "GitLab has no note %d on %s %d", c.NoteID, c.Noteable, c.IID)
	case n.System:
		return mismatch("object_attributes.system", "note %d is a system note", c.NoteID)
	case n.Body != c.NoteBody:
		return mismatch("object_attributes.note", "the body of note %d differs from GitLab's", c.NoteID)
	case n.Author.ID != c.NoteAuthorID || n.Author.ID != c.UserID:
		return mismatch("object_attributes.author_id", "payload says user %d (author %d), GitLab says %d",
			c.UserID, c.NoteAuthorID, n.Author.ID)
	}
	v.note = n
	return nil
}

// facts are the fields of the issue or merge request an event is checked
// against; finisher is who closed or merged it (0 when unknown).
type facts struct {
	state, sha string
	labels     gitlab.Labels
	finisher   int64
}

func (v *verified) facts() facts {
	userID := func(u *gitlab.BasicUser) int64 {
		if u == nil {
			return 0
		}
		return u.ID
	}
	if mr := v.subject.MergeRequest; mr != nil {
		f := facts{state: mr.State, sha: mr.SHA, labels: mr.Labels, finisher: userID(mr.ClosedBy)}
		if mr.State == "merged" {
			f.finisher = max(userID(mr.MergeUser), userID(mr.MergedBy))
		}
		return f
	}
	f := facts{state: v.subject.Issue.State, labels: v.subject.Issue.Labels}
	if cb := v.subject.Issue.ClosedBy; cb != nil {
		f.finisher = cb.ID
	}
	return f
}

// checkEntity compares an issue or merge request event with the API: the
// author, state and labels, the head commit, who opened, closed, merged or
// reopened it, and for a label change a label event by the acting user.
func (v *verified) checkEntity(ctx context.Context, api API, project string, c *Claim) error {
	f := v.facts()
	switch {
	case c.AuthorID != v.authorID:
		return mismatch("object_attributes.author_id", "payload says %d, GitLab says %d", c.AuthorID, v.authorID)
	case c.State != f.state:
		return mismatch("object_attributes.state", "payload says %q, GitLab says %q", c.State, f.state)
	case !sameSet(c.Labels, f.labels):
		return mismatch("object_attributes.labels", "payload says %q, GitLab says %q", c.Labels, []string(f.labels))
	case v.subject.MergeRequest != nil && c.SHA != f.sha:
		return mismatch("object_attributes.last_commit.id", "payload says %q, GitLab says %q", c.SHA, f.sha)
	case c.Transition == event.Opened && c.UserID != v.authorID:
		return mismatch("user.id", "payload says user %d opened it, GitLab says %d", c.UserID, v.authorID)
	case (c.Transition == event.Merged || c.Transition == event.Closed) && f.finisher != c.UserID:
		return mismatch("user.id", "payload says user %d %s it, GitLab says %d", c.UserID, c.Transition, f.finisher)
	case c.Transition == event.LabelChanged:
		pos, err := checkLabelEvents(ctx, api, project, c)
		if pos.After(v.pos) {
			v.pos = pos
		}
		return err
	case c.Transition == event.Reopened:
		return checkReopened(ctx, api, project, c)
	}
	return nil
}

// checkReopened confirms a reopen: the newest state event must be a
// reopen by the acting user.
func checkReopened(ctx context.Context, api API, project string, c *Claim) error {
	evs, err := api.StateEvents(ctx, project, c.Noteable, c.IID)
	if err != nil {
		return unavailable(fmt.Sprintf("state events of %s %d", c.Noteable, c.IID), err)
	}
	if len(evs) == 0 {
		return mismatch("user.id", "GitLab has no state event of %s %d", c.Noteable, c.IID)
	}
	last := evs[len(evs)-1]
	if last.State != gitlab.ReopenedEventType || last.User == nil || last.User.ID != c.UserID {
		return mismatch("user.id", "payload says user %d reopened it, GitLab's newest state event differs", c.UserID)
	}
	return nil
}

// checkLabelEvents confirms each label change of c with a resource label
// event by the acting user.
// It returns the position (time, then id) of the newest event confirming
// a change.
func checkLabelEvents(ctx context.Context, api API, project string, c *Claim) (changepos.Pos, error) {
	evs, err := api.LabelEvents(ctx, project, c.Noteable, c.IID)
	if err != nil {
		return changepos.Pos{}, unavailable(fmt.Sprintf("label events of %s %d", c.Noteable, c.IID), err)
	}
	var at changepos.Pos
	for _, l := range c.LabelChanges {
		act := map[string]string{"added": "add", "removed": "remove"}[l.Action]
		// The newest matching event is the one this webhook reports.
		i := slices.IndexFunc(evs, func(e *gitlab.LabelEvent) bool {
			return e.Action == act && e.Label.Name == l.Name && e.User.ID == c.UserID
		})
		if i < 0 {
			return changepos.Pos{}, mismatch("changes.labels", "GitLab has no event of user %d that %s label %q", c.UserID, l.Action, l.Name)
		}
		for j := len(evs) - 1; j >= i; j-- {
			if e := evs[j]; e.Action == act && e.Label.Name == l.Name && e.User.ID == c.UserID {
				if p := LabelEventPos(e); e.CreatedAt != nil && p.After(at) {
					at = p
				}
				break
			}
		}
	}
	return at, nil
}

func sameSet(a []string, b gitlab.Labels) bool {
	x, y := slices.Clone(a), slices.Clone([]string(b))
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// LabelEventPos is a label event's position: its creation and id.
func LabelEventPos(e *gitlab.LabelEvent) changepos.Pos {
	return changepos.Pos{At: timeOf(e.CreatedAt), ID: max(e.ID, 0)}
}

// NotePos is a note's position: its creation and id.
func NotePos(n *gitlab.Note) changepos.Pos {
	return changepos.Pos{At: timeOf(n.CreatedAt), ID: max(n.ID, 0)}
}

func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// changePos is the change's position (see verified.pos).
func (v *verified) changePos(c *Claim) changepos.Pos {
	var created, updated *time.Time
	if mr := v.subject.MergeRequest; mr != nil {
		created, updated = mr.CreatedAt, mr.UpdatedAt
	} else if is := v.subject.Issue; is != nil {
		created, updated = is.CreatedAt, is.UpdatedAt
	}
	switch {
	case v.note != nil && v.note.CreatedAt != nil:
		return NotePos(v.note)
	case c.Transition == event.LabelChanged && !v.pos.IsZero():
		return v.pos
	case c.Transition == event.Opened && created != nil:
		return changepos.At(created.UTC())
	case updated != nil:
		return changepos.At(updated.UTC())
	}
	return changepos.Pos{}
}
