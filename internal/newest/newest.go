// Package newest is the newest-pending rule over the runs of one scope
// (docs/scheduling.md): whoever dispatched last, the run that waits for
// a scope carries the newest change dispatched for it, by the change's
// position (changepos.Pos: its time on the tracker's clock, then
// the platform's change id), never by the order the runs were created
// in. A change older than one a run of its scope carries is covered by
// that run: every run reconciles the subject's current state, which
// holds every older change.
//
// The rule is pure; the outputs that dispatch (gha-dispatch,
// gitlab-pipeline) and the backstops that read their runs (github-poll,
// gitlab-poll) feed it what the platform lists. Keys that name no change
// (a scheduled run's scope key @ entity version) are ordered against
// nothing but the runs of the same key.
package newest

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
)

// State is a run's state as the platform lists it.
type State int

const (
	// Waiting: created but not started (GitHub queued or pending, GitLab
	// created, waiting_for_resource, or holding the resource before its
	// job runs).
	Waiting State = iota
	// Started: running.
	Started
	// Finished: ended other than cancelled.
	Finished
	// Cancelled: cancelled (or skipped) before or while running.
	Cancelled
)

// Run is one run of a scope.
type Run struct {
	ID  int64
	Key string // the idempotency key it carries
	// Created is when the platform created it (a GitHub run's created_at
	// at one-second resolution, a GitLab pipeline's created_at); Seq, when
	// not 0, is the platform's creation order (GitLab's pipeline id),
	// which orders runs before Created does.
	Created time.Time
	Seq     int64
	// Ended is when it was cancelled (the run's updated_at), for a
	// cancelled run.
	Ended time.Time
	State State
}

func (r Run) live() bool { return r.State != Cancelled }

// started reports whether the run left the queue (it may not be
// cancelled as a duplicate or a superseded waiter any more).
func (r Run) started() bool { return r.State == Started || r.State == Finished }

// Change is the position of the change an idempotency key names
// ("scope@<unix ms>" or "scope@<unix ms>.<change id>"); false for a key
// that names none, such as a scheduled run's entity version.
func Change(key string) (changepos.Pos, bool) {
	i := strings.LastIndexByte(key, '@')
	if i < 0 {
		return changepos.Pos{}, false
	}
	return changepos.ParseID(key[i+1:])
}

// Scope is the scope key an idempotency key starts with (before "@").
func Scope(key string) string {
	if i := strings.LastIndexByte(key, '@'); i >= 0 {
		return key[:i]
	}
	return key
}

// Newer reports whether key a names a newer change than key b; false
// when either names no change.
func Newer(a, b string) bool {
	pa, ok1 := Change(a)
	pb, ok2 := Change(b)
	return ok1 && ok2 && pa.After(pb)
}

// first orders runs of one key. On a platform that gives Seq (GitLab),
// which keeps every run it queued and starts a scope's waiters in any
// order, the one created first wins whatever started: a later one that
// acquired first yields to it at its start (Yields). Elsewhere (GitHub,
// whose concurrency group itself cancels the pending run when another is
// queued) the one started first wins, else the one created first (by
// Created, then id).
func first(a, b Run) int {
	if a.Seq != 0 && b.Seq != 0 {
		return cmp.Compare(a.Seq, b.Seq)
	}
	if a.started() != b.started() {
		if a.started() {
			return -1
		}
		return 1
	}
	if c := a.Created.Compare(b.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// Survivor is the run that stays of the live runs carrying one key: the
// first started, else the first created (with Seq: the first created,
// first). ok is false when none is live.
func Survivor(runs []Run) (id int64, ok bool) {
	var live []Run
	for _, r := range runs {
		if r.live() {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return 0, false
	}
	return slices.MinFunc(live, first).ID, true
}

// Newest is the live run of runs carrying the newest change (ties: the
// Survivor of that change); ok is false when no live run carries one.
func Newest(runs []Run) (Run, bool) {
	var best Run
	var bestPos changepos.Pos
	found := false
	for _, r := range runs {
		p, isChange := Change(r.Key)
		if !r.live() || !isChange {
			continue
		}
		if c := p.Compare(bestPos); !found || c > 0 || c == 0 && first(r, best) < 0 {
			best, bestPos, found = r, p, true
		}
	}
	return best, found
}
