package jirapoll

import (
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// Sharing work between pollers (docs/polling.md): from its second
// discovery on (see member), every eligible issue has
// one preferred poller among the pollers the cursor lists as seen within
// the TTL (this poller always counts), chosen by rendezvous hashing of the
// issue key, so pollers that see the same candidates pick disjoint ones
// without talking to each other, and an issue only moves when the set of
// pollers changes. This poller keeps the issues it is preferred for, plus
// the issues that are fair game: a stale lock (its holder died), or an
// issue that has been eligible, unserved, for more consecutive discoveries than its
// place in the queue explains, ⌈(rank+1)/(N·pollers)⌉ + 1 where rank is
// its position among the eligible issues by waiting time (its preferred
// poller is dead or overloaded): first for its second-choice poller, one
// cycle later for every poller. The others are counted in
// Discovery.Cursor.Shared.

// share filters disc.Eligible to this poller's share (see above).
func (d *Driver) share(cur *polllock.Cursor, disc *poll.Discovery, now time.Time) {
	d.cur.rounds++
	prev := d.cur.streak
	d.cur.streak = make(map[string]streak, len(disc.Eligible))
	for _, it := range disc.Eligible {
		st := streak{base: it.Waiting, n: 1}
		if p, ok := prev[it.ID]; ok && p.base.Equal(it.Waiting) {
			st.n = p.n + 1 // not served since: its checkpoint did not move
		}
		d.cur.streak[it.ID] = st
	}
	if cur == nil || !d.member() {
		return // not sharing (yet): pick at random like without a cursor
	}
	pollers := polllock.Cursor{Pollers: d.cur.known}.Fresh(d.o.PollerID, now, d.pollerTTL())
	// A poller that shares takes its share oldest first. Alone in the list
	// it takes the oldest only once the list shows its own entry: before
	// that, others may be about to register, and all would take the same.
	_, listed := cur.Pollers[d.o.PollerID]
	disc.Ordered = len(pollers) >= 2 || listed
	if len(pollers) < 2 {
		return
	}
	sorted := slices.Clone(disc.Eligible)
	slices.SortStableFunc(sorted, func(a, b *poll.Item) int {
		if c := a.Waiting.Compare(b.Waiting); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	per := d.o.N * len(pollers)
	var mine []*poll.Item
	for rank, it := range sorted {
		if d.mayTake(it.ID, pollers, d.cur.streak[it.ID].n-(rank+per)/per-1) {
			mine = append(mine, it)
		}
	}
	disc.Cursor.Shared = len(disc.Eligible) - len(mine)
	disc.Eligible = mine
}

// mayTake reports whether this poller takes issue key, overdue cycles
// past the wait its rank explains: its preferred poller until it is
// overdue; then the second choice alone (the preferred among the others,
// so that the two do not collide); one cycle later, anyone.
func (d *Driver) mayTake(key string, pollers []string, overdue int) bool {
	first := Preferred(key, pollers)
	switch {
	case overdue > 1:
		return true
	case overdue == 1: // the preferred poller is behind: the second choice alone takes it
		return Preferred(key, slices.DeleteFunc(slices.Clone(pollers), func(p string) bool { return p == first })) == d.o.PollerID
	}
	return first == d.o.PollerID
}

// streak counts the consecutive discoveries that found an item eligible
// with the same checkpoint (base): one that was served in between starts
// again at 1.
type streak struct {
	base time.Time
	n    int
}

// Preferred is the poller preferred for issue key among pollers
// (rendezvous hashing: the highest hash of poller and key; ties go to the
// smaller id). It is "" for no pollers.
func Preferred(key string, pollers []string) string {
	best, bestW := "", uint64(0)
	for _, p := range pollers {
		w := weight(p, key)
		if best == "" || w > bestW || (w == bestW && p < best) {
			best, bestW = p, w
		}
	}
	return best
}

// weight hashes a poller and a key (FNV-1a, then a 64-bit finalizer so
// that similar keys spread).
func weight(poller, key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(poller))
	h.Write([]byte{0})
	h.Write([]byte(key))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
