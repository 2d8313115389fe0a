package forgepoll

import (
	"context"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// MaxOlder bounds the versions whose older records are remembered (past
// that they start afresh: a version then costs one more read).
const MaxOlder = 10000

// OlderRecords is what was read of one entity version's runs older than
// the window: its attempts by harness, and whether every one had
// completed (no need to read again).
type OlderRecords struct {
	Attempts map[string][]reconcile.Attempt `json:"attempts,omitempty"`
	Complete bool                           `json:"complete"`
}

// Older is the records of entity versions older than the window's
// floor, by "tail@version": the list a backstop reads covers its window
// only, so the runs between a version's time and the floor are read once
// per version (again while one of them has not completed) when the
// entity is about to be dispatched. Safe for concurrent use.
type Older struct {
	mu sync.Mutex
	m  map[string]OlderRecords
}

// Of is the remembered attempts by harness of tail's version (nil when
// they were not read).
func (o *Older) Of(tail, version string) map[string][]reconcile.Attempt {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.m[tail+"@"+version].Attempts
}

// Read reads, with read, the records of tail's scope carrying e's
// version created from its time (reconcile.VersionTime, own the tool's
// accounts) to floor, unless they were read complete or the version is
// not older than floor (the window's list holds all of them).
func (o *Older) Read(ctx context.Context, tail string, e *entity.Entity, own []string, floor time.Time,
	read func(ctx context.Context, from time.Time) (OlderRecords, error)) error {
	from := reconcile.VersionTime(e, own)
	key := tail + "@" + e.Version
	o.mu.Lock()
	prev, done := o.m[key]
	o.mu.Unlock()
	if done && prev.Complete || !from.Before(floor) {
		return nil
	}
	got, err := read(ctx, from)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil || len(o.m) >= MaxOlder {
		o.m = map[string]OlderRecords{}
	}
	o.m[key] = got // a run still going: read again next time
	return nil
}

// Restore keeps a saved version's records, while fewer than MaxOlder are.
func (o *Older) Restore(key string, r OlderRecords) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]OlderRecords{}
	}
	if len(o.m) < MaxOlder {
		o.m[key] = r
	}
}

// Saved is a copy of the records remembered (for the state directory).
func (o *Older) Saved() map[string]OlderRecords {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]OlderRecords, len(o.m))
	for k, r := range o.m {
		out[k] = r
	}
	return out
}
