package ghaevent

import (
	"strings"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// IsBot reports whether u is a bot account: a login ending in "[bot]"
// (GitHub Apps, github-actions) or an account of type Bot. Bots are never
// looked up: their role is none.
func IsBot(u *gogithub.User) bool {
	return strings.HasSuffix(u.GetLogin(), "[bot]") || strings.EqualFold(u.GetType(), "Bot")
}

// RoleOf returns the event role a collaborator permission names (what
// PermissionLookup.Permission answers), and false when it names none of
// GitHub's built-in repository roles (the caller treats it as none).
func RoleOf(permission string) (event.Role, bool) {
	if !knownRole(permission) {
		return event.RoleNone, false
	}
	return event.Role(permission), true
}

// ChangeProposalOf describes pr as events do (state.change_proposal):
// head and base, author, head SHA when well-formed, and fork when the head
// repository is missing (a deleted fork) or differs from the base; base
// is the repository the pull request lives in, used when pr omits it.
func ChangeProposalOf(pr *gogithub.PullRequest, base string) *event.ChangeProposal {
	return changeProposalOf(pr, base)
}
