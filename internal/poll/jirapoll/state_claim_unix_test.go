//go:build unix

package jirapoll_test

import (
	"slices"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestOnlyTheClaimantSaves: a one-shot process started beside another
// from the same state directory does not get the state file's claim; it
// loaded the state before the other one saved, and must not write it
// back over the other's (last writer would win): the next process
// sweeps on from where the claimant left off.
func TestOnlyTheClaimantSaves(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.worldClient = true
	keys := e.labelled(9, false) // pages of 2
	dir := pollstate.Open(t.TempDir(), nil, e.clock.Now)
	dec := &sweepDecider{}
	out := &recorder{after: e.release}
	process := func(id string) (*poller, *jirapoll.State) {
		p := e.poller(pollerOpts{id: id, m: 2, entities: true, stale: 10 * time.Minute, out: out})
		st := jirapoll.LoadState(dir.For(jirapoll.Name, e.base), p.client, "cred", "")
		st.Attach(p.drv)
		p.o.Schedule = &poll.Schedule{Decider: dec, Policy: "allow", Invoker: jirapoll.Name + ":" + p.drv.PollerID(), Forge: "github",
			Cadence: p.drv.Cadence()}
		return p, st
	}
	a, stA := process("a")
	_, stB := process("b") // started beside a: loads the same (empty) state
	a.mustCycle()
	stA.Save()
	stB.Save() // b's cycle is not needed: it saves what it loaded
	stA.Close()
	stB.Close()
	if got := dec.take(); !slices.Equal(got, keys[0:2]) {
		t.Fatalf("a swept %v, want the first page", got)
	}
	e.clock.Advance(time.Minute)
	e.scheduledOneShot(dir, "c", dec, out)
	if got := dec.take(); !slices.Equal(got, keys[2:4]) {
		t.Errorf("the next process swept %v, want the second page %v: the claimant's state was overwritten", got, keys[2:4])
	}
}
