package gitlabevent

import (
	"regexp"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// RoleOf maps a GitLab access level to the role ladder:
//
//	50 owner       → admin
//	40 maintainer  → maintain
//	30 developer   → write
//	20 reporter    → triage
//	15 planner     → triage
//	10 guest       → read
//	 5 minimal     → none (sees no project content)
//	anything else  → none
//
// Not being a member at all is external (the caller decides that).
func RoleOf(level gitlab.AccessLevelValue) event.Role {
	switch {
	case level >= gitlab.OwnerPermissions:
		return event.RoleAdmin
	case level >= gitlab.MaintainerPermissions:
		return event.RoleMaintain
	case level >= gitlab.DeveloperPermissions:
		return event.RoleWrite
	case level >= gitlab.PlannerPermissions:
		return event.RoleTriage
	case level >= gitlab.GuestPermissions:
		return event.RoleRead
	}
	return event.RoleNone
}

// tokenUser matches the usernames GitLab gives project and group access
// token users (project_<id>_bot_<hash>, group_<id>_bot_<hash>).
var tokenUser = regexp.MustCompile(`^(project|group)_\d+_bot(_[0-9a-f]+)?$`)

// IsBot reports whether u is a bot: the users API's bot flag (access token
// users, service accounts) or an access token username.
func IsBot(u *gitlab.User) bool {
	return u.Bot || tokenUser.MatchString(u.Username)
}

// ActorOf describes user u. member is u's membership of the project, nil
// when u is not a member (external). Bots are never given a role beyond
// their membership's and are kind bot. authorID is the id of the issue or
// merge request's author.
func ActorOf(u *gitlab.User, member *gitlab.ProjectMember, authorID int64) event.Actor {
	a := event.Actor{ID: event.Truncate(u.Username, event.MaxID), Kind: event.ActorHuman, Role: event.RoleExternal,
		IsEntityAuthor: authorID != 0 && authorID == u.ID}
	if IsBot(u) {
		a.Kind = event.ActorBot
	}
	if member != nil {
		a.Role = RoleOf(member.AccessLevel)
		if member.State != "" && member.State != "active" {
			a.Role = event.RoleNone
		}
	}
	return a
}
