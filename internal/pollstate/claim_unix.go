//go:build unix

package pollstate

import (
	"os"
	"sync"
	"syscall"
)

// Claim takes the store's claim for the life of the process (an
// exclusive, non-blocking lock of a file beside the state file): what the
// state says of one process (a poller's id) is used by one process at a
// time, and only that process saves it (Save). ok is false when another
// process holds it, or when the claim cannot be taken (no state kept, the
// directory not writable); release gives it back (the process's exit
// does too), and the store saves nothing after. Take it before Load: the
// state loaded is then the last one saved. Asked again, Claim answers
// as the first time.
func (s *Store) Claim() (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.claimed == claimUntried {
		f, ok := s.lockFile()
		s.claimed, s.release = claimNone, func() {}
		if ok {
			s.claimed, s.release = claimHeld, sync.OnceFunc(func() {
				_ = f.Close()
				s.mu.Lock()
				s.claimed = claimNone
				s.mu.Unlock()
			})
		}
	}
	return s.release, s.claimed == claimHeld
}

// lockFile opens and locks the file beside the state file.
func (s *Store) lockFile() (*os.File, bool) {
	p := s.Path()
	if p == "" {
		return nil, false
	}
	if err := os.MkdirAll(s.dir.path, 0o700); err != nil {
		return nil, false
	}
	f, err := os.OpenFile(p+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, false
	}
	return f, true
}
