package authz

import (
	"errors"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// ErrEnumeration is the error of an entity whose action-indicating
// elements could not all be enumerated: none given, or an actor whose
// current role is unknown. Evaluation of the entity is then denied; only
// a complete enumeration may yield an empty activity.
var ErrEnumeration = errors.New("the entity's activity could not be enumerated")

// FilterActivity is authorization before CEL for an entity-source
// harness whose threshold is min ("" means the policy's MinRole): it
// returns a copy of en whose activity keeps only the elements an actor of
// role min or above originated (roles as resolved now, Actor.Role). Bots'
// elements and the tool's own accounts' never count. dropped is how many
// elements were removed. A nil entity, or an element whose actor's role
// is not a known role, is an error wrapping ErrEnumeration: the entity
// must not be evaluated. en is not modified.
func (p Policy) FilterActivity(en *entity.Entity, min event.Role) (kept *entity.Entity, dropped int, err error) {
	if en == nil {
		return nil, 0, fmt.Errorf("%w: no entity", ErrEnumeration)
	}
	if min == "" {
		min = p.MinRole
	}
	if !min.Valid() {
		return nil, 0, fmt.Errorf("min_role %q is not a role", min)
	}
	c := *en
	c.Activity = make([]entity.Element, 0, len(en.Activity))
	for i, el := range en.Activity {
		a := el.Actor
		switch {
		case !a.Role.Valid():
			return nil, 0, fmt.Errorf("%w: activity element %d (%s %s): actor %s has no known role (%q)", ErrEnumeration, i, el.Kind, el.ID, a.ID, a.Role)
		case a.Kind == event.ActorBot, p.BotIDs[a.ID], !a.Role.AtLeast(min):
			dropped++
		default:
			c.Activity = append(c.Activity, el)
		}
	}
	return &c, dropped, nil
}
