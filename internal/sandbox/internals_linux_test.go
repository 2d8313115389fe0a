//go:build linux

package sandbox

import (
	"errors"
	"testing"
)

// abandon drops a lease the way a run killed with SIGKILL does: its
// descriptors close, nothing is handed back.
func (l *Lease) abandon() {
	if l.rec != nil {
		l.rec.close()
	}
	for _, w := range l.searched {
		w.rec.close()
		w.dir.Close()
	}
	l.root.Close()
}

// withoutCgroup makes the reapers of the test fall back to the loop.
func withoutCgroup(t *testing.T) {
	old := cgroupBase
	cgroupBase = func() (string, error) { return "", errors.New("test: no cgroup") }
	t.Cleanup(func() { cgroupBase = old })
}
