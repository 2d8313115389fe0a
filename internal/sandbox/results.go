package sandbox

import "time"

// ReapLimit bounds how long a Reaper tries to end what an agent left
// behind.
const ReapLimit = 10 * time.Second

// Kept lists the files a hand-over or hand-back left as they were because
// they have more than one hard link: another name may be a file outside
// the checkout (a link the agent made), which must not change owner.
type Kept struct {
	Paths []string // the first maxListed of them
	N     int      // how many
}

// maxListed bounds what Kept and a walk's errors spell out.
const maxListed = 10

func (k *Kept) add(path string) {
	if k.N < maxListed {
		k.Paths = append(k.Paths, path)
	}
	k.N++
}

// Reaped is what a Reaper's Reap ended.
type Reaped struct {
	Killed int   // processes outside the agent's group that were killed
	Left   []int // processes still alive when ReapLimit had passed
	// Cgroup reports whether the agent's cgroup held them.
	Cgroup bool
}
