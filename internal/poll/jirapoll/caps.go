package jirapoll

import "github.com/fullsend-dev/fullsend/internal/poll"

// Capabilities implements poll.Driver: jira-poll locks its issues, reads
// Jira's clock, resolves issues as entities, sweeps them with their
// receipts, quarantines on the issue, and keeps its own cadence and
// poller id in its state.
func (d *Driver) Capabilities() poll.Capabilities {
	return poll.Capabilities{Clock: d, Entities: d, Scheduled: d, Quarantine: d, Cadence: d, Identity: d}
}

// InputCapabilities implements poll.Input: the state file (saved, its
// claim given back), the refresh of queued runs' locks, and comments.
func (in *Input) InputCapabilities() poll.InputCapabilities {
	return poll.InputCapabilities{State: in, Release: in, Refresh: in, Feedback: in}
}
