package authz

import (
	"errors"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
)

func element(id, actor, kind string, role event.Role) entity.Element {
	return entity.Element{Kind: entity.ElementComment, ID: id, Created: time.Unix(1e9, 0),
		Actor: event.Actor{ID: actor, Kind: kind, Role: role}, Body: "/fs-triage", Command: "/fs-triage"}
}

func TestFilterActivity(t *testing.T) {
	p, err := NewPolicy(event.RoleWrite, "fullsend-bot")
	if err != nil {
		t.Fatal(err)
	}
	en := &entity.Entity{Kind: entity.KindWorkItem, Activity: []entity.Element{
		element("1", "dev", event.ActorHuman, event.RoleWrite),
		element("2", "outsider", event.ActorHuman, event.RoleNone),
		element("3", "maintainer", event.ActorHuman, event.RoleMaintain),
		element("4", "dependabot", event.ActorBot, event.RoleAdmin),
		element("5", "fullsend-bot", event.ActorHuman, event.RoleAdmin),
		element("6", "reader", event.ActorHuman, event.RoleRead),
	}}
	tests := []struct {
		name    string
		min     event.Role
		kept    []string
		dropped int
	}{
		{"policy default (write)", "", []string{"1", "3"}, 4},
		{"harness min_role maintain", event.RoleMaintain, []string{"3"}, 5},
		{"harness min_role read", event.RoleRead, []string{"1", "3", "6"}, 3},
		{"even none: bots and the tool's own account never count", event.RoleNone, []string{"1", "2", "3", "6"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped, err := p.FilterActivity(en, tc.min)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, el := range got.Activity {
				ids = append(ids, el.ID)
			}
			if len(ids) != len(tc.kept) || dropped != tc.dropped {
				t.Fatalf("kept %v (dropped %d), want %v (%d)", ids, dropped, tc.kept, tc.dropped)
			}
			for i := range ids {
				if ids[i] != tc.kept[i] {
					t.Fatalf("kept %v, want %v", ids, tc.kept)
				}
			}
		})
	}
	if len(en.Activity) != 6 {
		t.Error("FilterActivity modified the entity")
	}
}

func TestFilterActivityDeniesIncompleteEnumeration(t *testing.T) {
	p, _ := NewPolicy(event.RoleWrite)
	if _, _, err := p.FilterActivity(nil, ""); !errors.Is(err, ErrEnumeration) {
		t.Errorf("nil entity: %v", err)
	}
	en := &entity.Entity{Activity: []entity.Element{element("1", "dev", event.ActorHuman, event.RoleWrite), element("2", "ghost", event.ActorHuman, "")}}
	if kept, _, err := p.FilterActivity(en, ""); !errors.Is(err, ErrEnumeration) || kept != nil {
		t.Errorf("unresolved role: %v, %v", kept, err)
	}
	empty, dropped, err := p.FilterActivity(&entity.Entity{Activity: []entity.Element{}}, "")
	if err != nil || len(empty.Activity) != 0 || dropped != 0 {
		t.Errorf("a complete, empty enumeration: %v %d %v", empty, dropped, err)
	}
	if _, _, err := p.FilterActivity(en, "owner"); err == nil {
		t.Error("unknown min_role accepted")
	}
}
