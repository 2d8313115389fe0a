//go:build unix

package pollstate_test

import (
	"testing"

	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// TestClaim: one process at a time holds a store's claim; released, it
// can be taken again; a store without a directory has none.
func TestClaim(t *testing.T) {
	w := newWorld(t)
	s := w.open().For("jira-poll", "x")
	release, ok := s.Claim()
	if !ok {
		t.Fatal("first claim refused")
	}
	if _, ok := w.open().For("jira-poll", "x").Claim(); ok {
		t.Fatal("a second claim was granted while the first is held")
	}
	if _, ok := w.open().For("jira-poll", "y").Claim(); !ok {
		t.Fatal("another input's claim was refused")
	}
	release()
	again, ok := w.open().For("jira-poll", "x").Claim()
	if !ok {
		t.Fatal("claim refused after the release")
	}
	again()
	if _, ok := (*pollstate.Dir)(nil).For("jira-poll", "x").Claim(); ok {
		t.Fatal("a store without a directory was claimed")
	}
}
