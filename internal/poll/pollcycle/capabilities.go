package pollcycle

import (
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// outputCapabilities is what the cycle's output can do beyond
// dispatching, read once when the cycle is built: the output contract
// (package output) sits below poll and cannot name these interfaces.
type outputCapabilities struct {
	finder  poll.DispatchFinder
	clock   poll.PlatformClock
	flusher poll.Flusher
	tracker poll.RunTracker
}

// capabilitiesOf reads out's optional interfaces (nil out: none).
func capabilitiesOf(out output.Driver) outputCapabilities {
	var oc outputCapabilities
	oc.finder, _ = out.(poll.DispatchFinder)
	oc.clock, _ = out.(poll.PlatformClock)
	oc.flusher, _ = out.(poll.Flusher)
	oc.tracker, _ = out.(poll.RunTracker)
	return oc
}
