package event

import (
	"fmt"
	"strings"
)

// Role is an actor's permission level on the event's repository or project,
// the type of Actor.Role. The embedded JSON Schema lists the same values
// (actor.role enum); a test keeps the two in step.
type Role string

// Roles, from most to least privileged. None and External rank the same: an
// account with no role at all and one from outside the organisation may
// both do only what anyone may do.
const (
	RoleAdmin    Role = "admin"
	RoleMaintain Role = "maintain"
	RoleWrite    Role = "write"
	RoleTriage   Role = "triage"
	RoleRead     Role = "read"
	RoleNone     Role = "none"
	RoleExternal Role = "external"
)

// roleRank orders the roles; a higher rank is more privileged.
var roleRank = map[Role]int{
	RoleAdmin:    5,
	RoleMaintain: 4,
	RoleWrite:    3,
	RoleTriage:   2,
	RoleRead:     1,
	RoleNone:     0,
	RoleExternal: 0,
}

// Roles lists every role, most privileged first.
func Roles() []Role {
	return []Role{RoleAdmin, RoleMaintain, RoleWrite, RoleTriage, RoleRead, RoleNone, RoleExternal}
}

// RoleNames lists every role's name, most privileged first.
func RoleNames() []string {
	rs := Roles()
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = string(r)
	}
	return names
}

// ParseRole returns the role named s, or an error naming s and the roles
// that are accepted.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if !r.Valid() {
		return "", fmt.Errorf("unknown role %q: want one of %s", s, strings.Join(RoleNames(), ", "))
	}
	return r, nil
}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { _, ok := roleRank[r]; return ok }

// AtLeast reports whether r is as privileged as min or more. An unknown
// role is at least nothing, and nothing is at least an unknown role.
func (r Role) AtLeast(min Role) bool {
	have, ok1 := roleRank[r]
	want, ok2 := roleRank[min]
	return ok1 && ok2 && have >= want
}

// String returns the role's name.
func (r Role) String() string { return string(r) }
