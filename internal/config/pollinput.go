package config

import "github.com/fullsend-dev/fullsend/internal/drivers"

// LockInput returns the poll.input_drivers entry whose poll locks the runs
// maintain: the first entry of a driver that holds poll locks (jira-poll).
// `fullsend run` connects to it to keep a run's lock, and a poller keeps
// the locks of the runs it has queued in process through it. ok is false
// when no entry holds locks.
func (p Poll) LockInput() (index int, ok bool) {
	for i, in := range p.InputDrivers {
		if d, known := drivers.LookupInput(in.Type); known && d.Polls {
			return i, true
		}
	}
	return -1, false
}
