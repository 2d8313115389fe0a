//go:build unix

package pollstate_test

import (
	"errors"
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

// TestOnlyTheClaimantSaves: a store whose claim another process holds
// saves nothing (what it loaded may be older than what the claimant
// saves); the claimant saves until it gives the claim back; a store that
// never asks for a claim saves as it always did.
func TestOnlyTheClaimantSaves(t *testing.T) {
	w := newWorld(t)
	claimant, other := w.open().For("jira-poll", "x"), w.open().For("jira-poll", "x")
	release, ok := claimant.Claim()
	if !ok {
		t.Fatal("first claim refused")
	}
	if _, ok := other.Claim(); ok {
		t.Fatal("a second claim was granted")
	}
	if err := claimant.Save(map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if err := other.Save(map[string]int{"n": 0}); !errors.Is(err, pollstate.ErrUnclaimed) {
		t.Fatalf("the store without the claim: %v, want ErrUnclaimed", err)
	}
	var got map[string]int
	if !w.open().For("jira-poll", "x").Load(&got, 0) || got["n"] != 1 {
		t.Fatalf("saved %v, want the claimant's", got)
	}
	release()
	if err := claimant.Save(map[string]int{"n": 2}); !errors.Is(err, pollstate.ErrUnclaimed) {
		t.Fatalf("after the release: %v, want ErrUnclaimed", err)
	}
	if err := w.open().For("github-poll", "y").Save(map[string]int{"n": 3}); err != nil {
		t.Fatalf("a store that asks for no claim: %v", err)
	}
}
