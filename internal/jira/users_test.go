package jira

import (
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func TestMapRoles(t *testing.T) {
	tests := []struct {
		names []string
		want  event.Role
	}{
		{nil, event.RoleExternal},
		{[]string{"Users"}, event.RoleRead},
		{[]string{"Users", "Developers"}, event.RoleWrite},
		{[]string{"Developers", "Users"}, event.RoleWrite},
		{[]string{"Users", "Administrators", "Developers"}, event.RoleAdmin},
		{[]string{"Service Desk Team"}, event.RoleRead},
	}
	for _, tt := range tests {
		if got := MapRoles(tt.names); got != tt.want {
			t.Errorf("MapRoles(%q) = %s, want %s", tt.names, got, tt.want)
		}
	}
}
