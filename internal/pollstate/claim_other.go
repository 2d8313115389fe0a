//go:build !unix

package pollstate

// Claim is not available on this system: it never succeeds, so what the
// state says of one process is never reused, and a store whose claim was
// asked for saves nothing (see claim_unix.go).
func (s *Store) Claim() (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claimed = claimNone
	return func() {}, false
}
