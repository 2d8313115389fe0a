//go:build !unix

package pollstate

// Claim is not available on this system: it never succeeds, so what the
// state says of one process is never reused (see claim_unix.go).
func (s *Store) Claim() (release func(), ok bool) { return func() {}, false }
