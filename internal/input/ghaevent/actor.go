package ghaevent

import (
	"context"
	"errors"
	"regexp"
	"strings"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// actor describes the sender: bot by login suffix or account type, role
// from the permission lookup (humans only; failures and unknown roles are
// none).
func (d *Driver) actor(ctx context.Context, b base, sender *gogithub.User, entityAuthor string) (event.Actor, error) {
	login := sender.GetLogin()
	if login == "" {
		return event.Actor{}, errors.New("payload has no sender.login")
	}
	a := event.Actor{ID: event.Truncate(login, event.MaxID), Kind: event.ActorHuman, Role: event.RoleNone,
		IsEntityAuthor: entityAuthor != "" && strings.EqualFold(login, entityAuthor)}
	if IsBot(sender) {
		a.Kind = event.ActorBot
		d.log.Debug("actor is a bot; role none without lookup", "actor", login)
		return a, nil
	}
	if d.o.Permissions == nil {
		d.log.Warn("no GitHub token, so the actor's role cannot be looked up: it is none and no run starts; "+
			"set GITHUB_TOKEN or GH_TOKEN to a token that can read the repository's collaborator permissions "+
			"(fine-grained: Metadata read-only; classic: repo, or public_repo for a public repository; "+
			"a workflow's GITHUB_TOKEN has it)", "actor", login, "repo", b.full)
		return a, nil
	}
	role, err := d.o.Permissions.Permission(ctx, b.owner, b.name, login)
	switch {
	case err != nil:
		d.log.Warn("collaborator permission lookup failed; actor role is none", "actor", login, "repo", b.full, "error", err.Error())
	case knownRole(role):
		a.Role = event.Role(role)
	default:
		d.log.Warn("unknown collaborator permission; actor role is none", "actor", login, "repo", b.full, "permission", role)
	}
	return a, nil
}

var shaPattern = regexp.MustCompile(`^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$`)

// changeProposalOf describes pr; base is the repository the event came
// from, used when the payload omits the base repository. A missing head
// repository (deleted fork) or one that differs from the base is a fork.
func changeProposalOf(pr *gogithub.PullRequest, base string) *event.ChangeProposal {
	head, bs := pr.GetHead(), pr.GetBase()
	baseRepo := bs.GetRepo().GetFullName()
	if baseRepo == "" {
		baseRepo = base
	}
	headRepo := head.GetRepo().GetFullName()
	cp := &event.ChangeProposal{
		ID:       int64(pr.GetNumber()),
		HeadRepo: event.Truncate(headRepo, event.MaxRepoField),
		BaseRepo: event.Truncate(baseRepo, event.MaxRepoField),
		HeadRef:  event.Truncate(head.GetRef(), event.MaxRefField),
		BaseRef:  event.Truncate(bs.GetRef(), event.MaxRefField),
		AuthorID: event.Truncate(pr.GetUser().GetLogin(), event.MaxID),
		IsFork:   headRepo == "" || !strings.EqualFold(headRepo, baseRepo),
	}
	if sha := head.GetSHA(); shaPattern.MatchString(sha) {
		cp.HeadSHA = sha
	}
	return cp
}

// lookupChangeProposal completes an issue_comment on a pull request with
// the pull request's head and base. Without a lookup, or when it fails,
// the description fails closed (fork, unknown head).
func (d *Driver) lookupChangeProposal(ctx context.Context, b base, is *gogithub.Issue) *event.ChangeProposal {
	closed := &event.ChangeProposal{ID: int64(is.GetNumber()), BaseRepo: event.Truncate(b.full, event.MaxRepoField),
		AuthorID: event.Truncate(is.GetUser().GetLogin(), event.MaxID), IsFork: true}
	if d.o.Pulls == nil {
		d.log.Warn("no GitHub token, so the pull request cannot be looked up: treating it as a fork; "+
			"set GITHUB_TOKEN or GH_TOKEN to a token that can read pull requests (fine-grained: Pull requests read-only)",
			"repo", b.full, "number", is.GetNumber())
		return closed
	}
	pr, err := d.o.Pulls.PullRequest(ctx, b.owner, b.name, is.GetNumber())
	if err != nil || pr == nil {
		msg := "no pull request returned"
		if err != nil {
			msg = err.Error()
		}
		d.log.Warn("pull request lookup failed; treating the pull request as a fork", "repo", b.full, "number", is.GetNumber(), "error", msg)
		return closed
	}
	if pr.Number == nil {
		pr.Number = gogithub.Ptr(is.GetNumber())
	}
	return changeProposalOf(pr, b.full)
}
