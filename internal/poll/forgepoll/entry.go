package forgepoll

import "github.com/fullsend-dev/fullsend/internal/config"

// Entry is what a configured forge input keeps beside its driver: its
// configuration entry (poll.Input's Settings) and the fingerprint of its
// credential (pollstate.Fingerprint), under which the tool's own account
// is remembered (Account).
type Entry struct {
	settings   config.InputDriver
	credential string
}

// NewEntry returns the entry of settings whose credential has the
// fingerprint credential.
func NewEntry(settings config.InputDriver, credential string) Entry {
	return Entry{settings: settings, credential: credential}
}

// Settings implements poll.Input.
func (e Entry) Settings() config.InputDriver { return e.settings }

// Credential is the credential's fingerprint.
func (e Entry) Credential() string { return e.credential }
