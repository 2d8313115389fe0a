package poll

import (
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
)

// SweepSwitch implements Sweeper for a driver that embeds it: off until
// the cycle enables it.
type SweepSwitch struct {
	mu sync.Mutex
	on bool
}

// EnableSweep implements Sweeper.
func (s *SweepSwitch) EnableSweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = true
}

// SweepOn reports whether scheduled discovery is on.
func (s *SweepSwitch) SweepOn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on
}

// SweptEntity is a swept item's entity as resolved when the item was
// last updated (what a forge driver remembers, in memory and its state,
// to resolve a candidate once per update).
type SweptEntity struct {
	Updated time.Time      `json:"updated"`
	Entity  *entity.Entity `json:"entity"`
}

// At is the entity when it was resolved at updated, else nil.
func (c SweptEntity) At(updated time.Time) *entity.Entity {
	if c.Entity == nil || !c.Updated.Equal(updated) {
		return nil
	}
	return c.Entity
}
