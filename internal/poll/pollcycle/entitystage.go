package pollcycle

import (
	"context"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// resolveEntities is the entity stage, between Detect and the first
// decision: when the driver resolves entities (Capabilities.Entities)
// and some enabled harness declares its system among entity sources
// (Decider.DecidesEntities), the entity of every item with changes to decide is
// resolved once, shared by all its changes and harnesses; so is the
// entity of every swept item (scheduled discovery, Item.Swept), afresh. A failed
// resolution is the item's (Item.Entity.Err): it is logged and counted,
// and it denies only the entity-source harnesses, the event-only ones
// decide the item's changes as usual. An error stops the cycle.
func (c *cycle) resolveEntities(ctx context.Context, items []*poll.Item) error {
	er := c.caps.Entities
	if er == nil || !c.o.Core.DecidesEntities(er.EntitySystem()) {
		return nil
	}
	var todo []*poll.Item
	for _, it := range items {
		it.Entity = nil
		if len(it.Window()) > 0 || it.Swept {
			todo = append(todo, it)
		}
	}
	c.st.EntitySystem = er.EntitySystem()
	if len(todo) == 0 {
		return nil
	}
	if err := poll.ResolveEntities(ctx, er, todo); err != nil {
		return fmt.Errorf("%s entity resolution: %w", c.o.Driver.Name(), err)
	}
	for _, it := range todo {
		if res := it.Entity; res != nil && res.Err == nil && res.Entity != nil {
			if err := res.Entity.Validate(); err != nil {
				it.Entity = &entity.Resolution{Err: fmt.Errorf("the resolved entity is not a valid NormalizedEntity: %w", err)}
			}
		}
		switch res := it.Entity; {
		case res == nil:
			c.st.EntitiesUnresolved++
			c.log.Warn("entity not resolved: its entity-source harnesses are denied evaluation of the item's changes", "item", it.ID, "reason", "the driver resolved no entity")
		case res.Err != nil || res.Entity == nil:
			c.st.EntitiesUnresolved++
			why := "no entity"
			if res.Err != nil {
				why = res.Err.Error()
			}
			c.log.Warn("entity not resolved: its entity-source harnesses are denied evaluation of the item's changes", "item", it.ID, "reason", why)
		default:
			c.st.EntitiesResolved++
		}
	}
	return nil
}
