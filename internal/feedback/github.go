package feedback

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/github"
)

// GitHubPolicy is the small retry budget of a feedback write on GitHub:
// one retry, short waits.
var GitHubPolicy = github.Policy{MaxRetries: 1, BaseBackoff: 200 * time.Millisecond, MaxBackoff: time.Second,
	MaxWait: 2 * time.Second, Budget: 3 * time.Second, Idempotent: true}

// GitHub writes feedback through a client of internal/github: reactions
// (POST /repos/{o}/{r}/issues/comments/{id}/reactions on a comment,
// /repos/{o}/{r}/issues/{n}/reactions on an issue or pull request; 200
// means the account had reacted so already) and comments
// (GET then POST /repos/{o}/{r}/issues/{n}/comments).
type GitHub struct {
	Client *gogithub.Client
	Policy *github.Policy // nil: GitHubPolicy
}

var _ Writer = (*GitHub)(nil)

func (g *GitHub) policy() github.Policy {
	if g.Policy == nil {
		return GitHubPolicy
	}
	return *g.Policy
}

// React implements Writer.
func (g *GitHub) React(ctx context.Context, t Target, content string) (bool, error) {
	owner, repo, ok := strings.Cut(t.Repo, "/")
	if !ok || t.Number < 1 {
		return false, errors.New("GitHub reaction: no repository or number")
	}
	resp, err := github.Call(ctx, g.policy(), func(ctx context.Context) (*gogithub.Response, error) {
		var resp *gogithub.Response
		var err error
		if t.Comment != 0 {
			_, resp, err = g.Client.Reactions.CreateIssueCommentReaction(ctx, owner, repo, t.Comment, content)
		} else {
			_, resp, err = g.Client.Reactions.CreateIssueReaction(ctx, owner, repo, int(t.Number), content)
		}
		return resp, err
	})
	if err != nil {
		return false, err
	}
	return resp != nil && resp.StatusCode == http.StatusOK, nil
}

// Comment implements Writer: the item's comments since t.Since are read
// first (one page of the newest), and none is posted when one carries
// marker.
func (g *GitHub) Comment(ctx context.Context, t Target, text, marker string) (bool, error) {
	owner, repo, ok := strings.Cut(t.Repo, "/")
	if !ok || t.Number < 1 {
		return false, errors.New("GitHub comment: no repository or number")
	}
	opt := &gogithub.IssueListCommentsOptions{ListOptions: gogithub.ListOptions{PerPage: 100}}
	if !t.Since.IsZero() {
		opt.Since = &t.Since
	}
	list, _, err := github.CallFor(ctx, g.policy(), func(ctx context.Context) ([]*gogithub.IssueComment, *gogithub.Response, error) {
		return g.Client.Issues.ListComments(ctx, owner, repo, int(t.Number), opt)
	})
	if err != nil {
		return false, err
	}
	for _, c := range list {
		if strings.Contains(c.GetBody(), marker) {
			return true, nil
		}
	}
	p := g.policy()
	p.Idempotent = false // a comment posted twice is two comments
	_, err = github.Call(ctx, p, func(ctx context.Context) (*gogithub.Response, error) {
		_, resp, err := g.Client.Issues.CreateComment(ctx, owner, repo, int(t.Number), &gogithub.IssueComment{Body: &text})
		return resp, err
	})
	return false, err
}
