package jirapoll

import (
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Sharing work between pollers (docs/polling.md): from its second
// discovery on (see member), a poller splits the eligible issues among the
// pollers the cursor document it read lists as seen within the TTL, so that
// pollers that read the same document and see the same candidates pick
// disjoint issues without talking to each other:
//   - oldest first, each issue goes to the first poller in its rendezvous
//     order (hashing of poller and issue key) that has fewer than N issues
//     so far, so an issue only moves when the set of pollers or the
//     backlog changes, and no poller is handed more than it can take in
//     one cycle while another idles;
//   - a poller the document does not list (yet) takes no share: the
//     listed ones cover its issues until its heartbeat lists it;
//   - fair game are a stale lock (its holder died) and an issue that has
//     been eligible, unserved, for more consecutive discoveries than its
//     place in the queue explains, ⌈(rank+1)/(N·pollers)⌉ + 1 where rank is
//     its position among the eligible issues by waiting time (its poller is
//     dead or stuck): first for a second choice alone, one cycle later for
//     every poller.
// The others are counted in Discovery.Cursor.Shared.

// share filters disc.Eligible to this poller's share (see above).
func (d *Driver) share(cur *cursor.Cursor, disc *poll.Discovery, now time.Time) {
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
	pollers := cur.Listed(now, d.pollerTTL())
	listed := slices.Contains(pollers, d.o.PollerID)
	// A poller that shares takes its share oldest first. Alone in the list
	// it takes the oldest only once the list shows its own entry: before
	// that, others may be about to register, and all would take the same.
	disc.Ordered = len(pollers) >= 2 || listed
	if len(pollers) == 0 || len(pollers) == 1 && listed {
		return
	}
	sorted := slices.Clone(disc.Eligible)
	slices.SortStableFunc(sorted, poll.ByWait)
	owners := assign(sorted, pollers, d.o.N)
	per := d.o.N * len(pollers)
	var mine []*poll.Item
	for rank, it := range sorted {
		if d.mayTake(it.ID, owners[rank], pollers, d.cur.streak[it.ID].n-(rank+per)/per-1) {
			mine = append(mine, it)
		}
	}
	disc.Cursor.Shared = len(disc.Eligible) - len(mine)
	disc.Eligible = mine
}

// assign gives each of sorted (oldest first) its poller: the first in its
// rendezvous order that has fewer than n issues so far, else (every poller
// has n: the issue waits its turn) its preferred one.
func assign(sorted []*poll.Item, pollers []string, n int) []string {
	load := make(map[string]int, len(pollers))
	out := make([]string, len(sorted))
	for i, it := range sorted {
		order := ranked(it.ID, pollers)
		out[i] = order[0]
		for _, p := range order {
			if load[p] < n {
				out[i] = p
				break
			}
		}
		load[out[i]]++
	}
	return out
}

// mayTake reports whether this poller takes issue key, whose assigned
// poller is owner, overdue cycles past the wait its rank explains: the
// owner until it is overdue; then the second choice alone (the preferred
// among the others, so that the two do not collide); one cycle later,
// anyone.
func (d *Driver) mayTake(key, owner string, pollers []string, overdue int) bool {
	switch {
	case overdue > 1:
		return true
	case overdue == 1: // the owner is behind: the second choice alone takes it
		for _, p := range ranked(key, pollers) {
			if p != owner {
				return p == d.o.PollerID
			}
		}
		return false
	}
	return owner == d.o.PollerID
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
	if len(pollers) == 0 {
		return ""
	}
	return ranked(key, pollers)[0]
}

// ranked is pollers in their rendezvous order for key, preferred first.
func ranked(key string, pollers []string) []string {
	out := slices.Clone(pollers)
	w := make(map[string]uint64, len(out))
	for _, p := range out {
		w[p] = weight(p, key)
	}
	slices.SortFunc(out, func(a, b string) int {
		if w[a] != w[b] {
			if w[a] > w[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
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
