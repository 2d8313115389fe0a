package feedback

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	gl "gitlab.com/gitlab-org/api/client-go"
)

// GitLab writes feedback through a client of internal/gitlab: award
// emoji (POST /projects/:id/{issues|merge_requests}/:iid/notes/:note_id/award_emoji
// on a note, …/:iid/award_emoji on the item) and notes. GitLab answers
// an award the user already gave with 404 "has already been taken"; as
// client-go reduces every 404 to ErrNotFound, a 404 is settled by
// listing the awardable's awards (and reading the token's user once): an
// award of that name by that user means the award exists.
type GitLab struct {
	Client *gl.Client
	// Project overrides the target's project (a path or numeric id).
	Project string

	mu sync.Mutex
	me int64 // the token's user, once read
}

var _ Writer = (*GitLab)(nil)

func (g *GitLab) project(t Target) string {
	if g.Project != "" {
		return g.Project
	}
	return t.Repo
}

// React implements Writer.
func (g *GitLab) React(ctx context.Context, t Target, content string) (bool, error) {
	pid := g.project(t)
	if pid == "" || t.Number < 1 {
		return false, errors.New("GitLab award emoji: no project or iid")
	}
	opt := &gl.CreateAwardEmojiOptions{Name: content}
	ro := gl.WithContext(ctx)
	var err error
	switch {
	case t.Comment != 0 && t.MergeRequest:
		_, _, err = g.Client.AwardEmoji.CreateMergeRequestAwardEmojiOnNote(pid, t.Number, t.Comment, opt, ro)
	case t.Comment != 0:
		_, _, err = g.Client.AwardEmoji.CreateIssuesAwardEmojiOnNote(pid, t.Number, t.Comment, opt, ro)
	case t.MergeRequest:
		_, _, err = g.Client.AwardEmoji.CreateMergeRequestAwardEmoji(pid, t.Number, opt, ro)
	default:
		_, _, err = g.Client.AwardEmoji.CreateIssueAwardEmoji(pid, t.Number, opt, ro)
	}
	var er *gl.ErrorResponse
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &er) && er.HasStatusCode(http.StatusConflict):
		return true, nil
	case errors.Is(err, gl.ErrNotFound):
		return g.awarded(ctx, pid, t, content)
	}
	return false, err
}

// awarded reports whether the token's user already gave the award on t
// (settling a 404); otherwise the 404 stands.
func (g *GitLab) awarded(ctx context.Context, pid string, t Target, content string) (bool, error) {
	me, err := g.tokenUser(ctx)
	if err != nil {
		return false, err
	}
	opt, ro := &gl.ListAwardEmojiOptions{ListOptions: gl.ListOptions{PerPage: 100}}, gl.WithContext(ctx)
	var list []*gl.AwardEmoji
	switch {
	case t.Comment != 0 && t.MergeRequest:
		list, _, err = g.Client.AwardEmoji.ListMergeRequestAwardEmojiOnNote(pid, t.Number, t.Comment, opt, ro)
	case t.Comment != 0:
		list, _, err = g.Client.AwardEmoji.ListIssuesAwardEmojiOnNote(pid, t.Number, t.Comment, opt, ro)
	case t.MergeRequest:
		list, _, err = g.Client.AwardEmoji.ListMergeRequestAwardEmoji(pid, t.Number, opt, ro)
	default:
		list, _, err = g.Client.AwardEmoji.ListIssueAwardEmoji(pid, t.Number, opt, ro)
	}
	if err != nil {
		return false, err
	}
	for _, a := range list {
		if a.Name == content && a.User.ID == me {
			return true, nil
		}
	}
	return false, errors.New("GitLab award emoji: 404 Not Found")
}

// tokenUser is the id of the token's user (GET /user), read once: a
// failed read is tried again next time.
func (g *GitLab) tokenUser(ctx context.Context) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.me != 0 {
		return g.me, nil
	}
	u, _, err := g.Client.Users.CurrentUser(gl.WithContext(ctx))
	if err != nil {
		return 0, err
	}
	g.me = u.ID
	return g.me, nil
}

// Comment implements Writer: the item's notes (the newest 100) are read
// first, and none is posted when one carries marker.
func (g *GitLab) Comment(ctx context.Context, t Target, text, marker string) (bool, error) {
	pid := g.project(t)
	if pid == "" || t.Number < 1 {
		return false, errors.New("GitLab note: no project or iid")
	}
	ro := gl.WithContext(ctx)
	sort, by := "desc", "created_at"
	var notes []*gl.Note
	var err error
	if t.MergeRequest {
		notes, _, err = g.Client.Notes.ListMergeRequestNotes(pid, t.Number, &gl.ListMergeRequestNotesOptions{
			ListOptions: gl.ListOptions{PerPage: 100}, Sort: &sort, OrderBy: &by}, ro)
	} else {
		notes, _, err = g.Client.Notes.ListIssueNotes(pid, t.Number, &gl.ListIssueNotesOptions{
			ListOptions: gl.ListOptions{PerPage: 100}, Sort: &sort, OrderBy: &by}, ro)
	}
	if err != nil {
		return false, err
	}
	for _, n := range notes {
		if strings.Contains(n.Body, marker) {
			return true, nil
		}
	}
	if t.MergeRequest {
		_, _, err = g.Client.Notes.CreateMergeRequestNote(pid, t.Number, &gl.CreateMergeRequestNoteOptions{Body: &text}, ro)
	} else {
		_, _, err = g.Client.Notes.CreateIssueNote(pid, t.Number, &gl.CreateIssueNoteOptions{Body: &text}, ro)
	}
	return false, err
}
