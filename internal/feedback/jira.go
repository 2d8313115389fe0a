package feedback

import (
	"context"
	"errors"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/jira"
)

// Jira writes feedback through the Jira client: Jira comments have no
// reactions, so only comments, each looked for first by its marker among
// the comments made since the change (GET, newest first, stopping at the
// change), and posted only when absent.
type Jira struct {
	Client *jira.Client
}

var _ Writer = (*Jira)(nil)

// ErrNoReactions: Jira has no reactions on comments.
var ErrNoReactions = errors.New("jira: comments have no reactions")

// React implements Writer: Jira has none.
func (j *Jira) React(context.Context, Target, string) (bool, error) { return false, ErrNoReactions }

// Comment implements Writer.
func (j *Jira) Comment(ctx context.Context, t Target, text, marker string) (bool, error) {
	if t.Key == "" {
		return false, errors.New("jira comment: no issue key")
	}
	cs, err := j.Client.CommentsSince(ctx, t.Key, t.Since)
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		if strings.Contains(c.Text, marker) {
			return true, nil
		}
	}
	_, err = j.Client.AddComment(ctx, t.Key, text)
	return false, err
}
