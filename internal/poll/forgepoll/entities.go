package forgepoll

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// MaxEntities bounds the swept entities remembered.
const MaxEntities = 5000

// Entities is the swept entities remembered, by subject (K: the forge's
// key of one), each as resolved at its subject's updated_at: a
// candidate's entity is resolved once per update. Past MaxEntities it
// starts afresh. Safe for concurrent use; the zero value is empty.
type Entities[K comparable] struct {
	mu sync.Mutex
	m  map[K]poll.SweptEntity
}

// Get is k's entity remembered at updated, else resolve's (an error when
// it resolves none).
func (c *Entities[K]) Get(ctx context.Context, k K, updated time.Time, resolve func(context.Context) (*entity.Entity, error)) (*entity.Entity, error) {
	c.mu.Lock()
	e := c.m[k].At(updated)
	c.mu.Unlock()
	if e != nil {
		return e, nil
	}
	e, err := resolve(ctx)
	if err == nil && e == nil {
		err = errors.New("no entity")
	}
	return e, err
}

// Remember keeps e as k's entity at updated, once that second is
// complete on the forge's clock (changepos.LastComplete of now at
// resolution): a change made later in the same second may leave
// updated_at where it is, and the entity kept would miss it.
func (c *Entities[K]) Remember(k K, updated time.Time, e *entity.Entity, now time.Time, resolution time.Duration) {
	if updated.After(changepos.LastComplete(now, resolution)) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= MaxEntities {
		c.m = map[K]poll.SweptEntity{}
	}
	c.m[k] = poll.SweptEntity{Updated: updated, Entity: e}
}

// Restore keeps a saved entity (the state directory's), while fewer than
// MaxEntities are.
func (c *Entities[K]) Restore(k K, s poll.SweptEntity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[K]poll.SweptEntity{}
	}
	if len(c.m) < MaxEntities {
		c.m[k] = s
	}
}

// Saved is a copy of the entities remembered (for the state directory).
func (c *Entities[K]) Saved() map[K]poll.SweptEntity {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[K]poll.SweptEntity, len(c.m))
	for k, s := range c.m {
		out[k] = s
	}
	return out
}

// Has reports whether an entity of k is remembered.
func (c *Entities[K]) Has(k K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[k]
	return ok
}
