package githubpoll

import "github.com/fullsend-dev/fullsend/internal/poll"

// Capabilities implements poll.Driver: github-poll takes no locks
// (poll.NoLocks), reads the forge's clock, resolves entities and sweeps
// them with the receipts its dispatched runs record.
func (d *Driver) Capabilities() poll.Capabilities {
	return poll.Capabilities{NoLocks: d, Clock: d, Entities: d, Scheduled: d}
}

// InputCapabilities implements poll.Input: the state file, saved after
// each cycle, and feedback on the items.
func (in *Input) InputCapabilities() poll.InputCapabilities {
	return poll.InputCapabilities{State: in, Feedback: in}
}
