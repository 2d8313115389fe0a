package event

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestRolesMatchSchema fails when the Go constants and the schema's
// actor.role enum drift apart; the schema is the source of truth.
func TestRolesMatchSchema(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	actor, ok := doc.Defs["actor"]
	if !ok {
		t.Fatal("schema has no $defs.actor")
	}
	enum := actor.Properties["role"].Enum
	if len(enum) == 0 {
		t.Fatal("schema $defs.actor.properties.role has no enum")
	}
	if got := RoleNames(); !slices.Equal(got, enum) {
		t.Fatalf("RoleNames() = %v, schema actor.role enum = %v", got, enum)
	}
	for _, name := range enum {
		if r, err := ParseRole(name); err != nil || string(r) != name {
			t.Errorf("ParseRole(%q) = %q, %v", name, r, err)
		}
	}
}

func TestParseRoleRejectsUnknown(t *testing.T) {
	for _, s := range []string{"", "owner", "Admin", " write"} {
		r, err := ParseRole(s)
		if err == nil || r != "" {
			t.Errorf("ParseRole(%q) = %q, %v; want an error", s, r, err)
			continue
		}
		if !strings.Contains(err.Error(), `"`+s+`"`) || !strings.Contains(err.Error(), "admin, maintain") {
			t.Errorf("ParseRole(%q) error %q names neither the input nor the accepted roles", s, err)
		}
	}
}

func TestRoleAtLeast(t *testing.T) {
	tests := []struct {
		have, min Role
		want      bool
	}{
		{RoleAdmin, RoleMaintain, true},
		{RoleMaintain, RoleWrite, true},
		{RoleWrite, RoleWrite, true},
		{RoleTriage, RoleWrite, false},
		{RoleRead, RoleTriage, false},
		{RoleTriage, RoleRead, true},
		{RoleNone, RoleRead, false},
		{RoleExternal, RoleNone, true},
		{RoleNone, RoleExternal, true},
		{RoleExternal, RoleRead, false},
		{"owner", RoleNone, false},
		{RoleAdmin, "owner", false},
	}
	for _, tt := range tests {
		if got := tt.have.AtLeast(tt.min); got != tt.want {
			t.Errorf("%q.AtLeast(%q) = %v, want %v", tt.have, tt.min, got, tt.want)
		}
	}
	// Roles() is ordered: each role is at least every role after it.
	rs := Roles()
	for i := range rs {
		for j := i; j < len(rs); j++ {
			if !rs[i].AtLeast(rs[j]) {
				t.Errorf("Roles() out of order: %s is not at least %s", rs[i], rs[j])
			}
		}
	}
}
