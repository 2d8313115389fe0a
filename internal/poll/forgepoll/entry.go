package forgepoll

import (
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Entry is what a configured forge input keeps beside its driver: its
// configuration entry (poll.Input's Settings), the fingerprint of its
// credential (pollstate.Fingerprint), under which the tool's own account
// is remembered (Account), and its reaction writer (poll.FeedbackInput).
type Entry struct {
	settings   config.InputDriver
	credential string
	system     string
	fb         feedback.Writer
}

// NewEntry returns the entry of settings whose credential has the
// fingerprint credential; fb writes the reactions on system's items,
// through the poller's own client (its transport counts the calls).
func NewEntry(settings config.InputDriver, credential, system string, fb feedback.Writer) Entry {
	return Entry{settings: settings, credential: credential, system: system, fb: fb}
}

var _ poll.FeedbackInput = Entry{}

// Feedback implements poll.FeedbackInput.
func (e Entry) Feedback() (string, feedback.Writer) { return e.system, e.fb }

// Settings implements poll.Input.
func (e Entry) Settings() config.InputDriver { return e.settings }

// Credential is the credential's fingerprint.
func (e Entry) Credential() string { return e.credential }
