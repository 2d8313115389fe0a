//go:build unix

package pollstate

import (
	"os"
	"syscall"
)

// Claim takes the store's claim for the life of the process (an
// exclusive, non-blocking lock of a file beside the state file): what the
// state says of one process (a poller's id) is used by one process at a
// time. ok is false when another process holds it, or when the claim
// cannot be taken (no state kept, the directory not writable); release
// gives it back (the process's exit does too).
func (s *Store) Claim() (release func(), ok bool) {
	p := s.Path()
	if p == "" {
		return func() {}, false
	}
	if err := os.MkdirAll(s.dir.path, 0o700); err != nil {
		return func() {}, false
	}
	f, err := os.OpenFile(p+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return func() {}, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return func() {}, false
	}
	return func() { _ = f.Close() }, true
}
