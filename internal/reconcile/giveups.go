package reconcile

import "time"

// MaxGiveUps bounds a GiveUps memory.
const MaxGiveUps = 10000

// GiveUps is the memory of the entity versions a poller gave up on where
// the platform keeps no quarantine record of its own (github-poll,
// gitlab-poll): GiveUpKey → when. It holds at most MaxGiveUps keys; past
// that it starts afresh, so a version may be given up on (and told) once
// more, never run more than its retries allow. Not safe for concurrent
// use; the zero value is ready, and it encodes as a JSON object.
type GiveUps map[string]time.Time

// GiveUpKey names harness's give-up on version of the scope tail
// ("harness:tail@version").
func GiveUpKey(harness, tail, version string) string {
	return harness + ":" + tail + "@" + version
}

// Add remembers key as given up on at at.
func (g *GiveUps) Add(key string, at time.Time) {
	if *g == nil || len(*g) >= MaxGiveUps {
		*g = GiveUps{}
	}
	(*g)[key] = at
}

// Restore remembers key from a saved memory, while there is room.
func (g *GiveUps) Restore(key string, at time.Time) {
	if *g == nil {
		*g = GiveUps{}
	}
	if len(*g) < MaxGiveUps {
		(*g)[key] = at
	}
}

// Has reports whether key was given up on.
func (g GiveUps) Has(key string) bool {
	_, ok := g[key]
	return ok
}
