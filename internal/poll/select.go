package poll

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// DefaultN is the number of items a cycle locks (lock.n) when its
// options give none.
const DefaultN = 5

// Spread is how many times N the selection window holds: each cycle picks
// N items at random among the Spread×N longest-waiting eligible items.
// Randomness keeps parallel pollers from all locking the same items;
// the window keeps every item's wait bounded, because an item only ever
// moves towards the front of the window while it waits.
const Spread = 4

// ByWait orders items longest-waiting first: the earliest Waiting, then
// (items handled up to the same point, e.g. all seeded at once) the
// earliest last update seen (Cutoff), which approximates the order their
// changes arrived in, then the ID.
func ByWait(a, b *Item) int {
	if c := a.Waiting.Compare(b.Waiting); c != 0 {
		return c
	}
	if c := a.Cutoff.Compare(b.Cutoff); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// Select returns up to n of the eligible items: the longest-waiting
// (ByWait) window of Spread×n items is
// shuffled with rng and the first n are taken. The input is not modified.
// A nil rng selects the n longest-waiting items deterministically.
func Select(eligible []*Item, n int, rng *rand.Rand) []*Item {
	if n <= 0 || len(eligible) == 0 {
		return nil
	}
	sorted := slices.Clone(eligible)
	slices.SortStableFunc(sorted, ByWait)
	window := min(len(sorted), n*Spread)
	sorted = sorted[:window]
	if rng != nil {
		rng.Shuffle(len(sorted), func(i, j int) { sorted[i], sorted[j] = sorted[j], sorted[i] })
	}
	return sorted[:min(n, len(sorted))]
}
