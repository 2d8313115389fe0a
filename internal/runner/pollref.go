package runner

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// DriverJiraPoll is the only poll-lock driver this runner knows.
const DriverJiraPoll = drivername.JiraPoll

// ParsePollLock decodes the `poll_lock` dispatch input
// (`{"id","driver","property"}`). Empty or blank text means the run did not
// come from polling and yields nil. Unknown fields, a missing id, an unknown
// driver or a malformed property are *InputError.
func ParsePollLock(text string) (*plan.PollLock, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	var pl plan.PollLock
	if err := dec.Decode(&pl); err != nil {
		return nil, inputErr("poll lock reference: not a {\"id\",\"driver\",\"property\"} object: %v", err)
	}
	if dec.More() {
		return nil, inputErr("poll lock reference: trailing data after the object")
	}
	if err := CheckPollLock(&pl); err != nil {
		return nil, err
	}
	return &pl, nil
}

// CheckPollLock validates a poll-lock reference: a non-empty id, the
// jira-poll driver and a property of the form ISSUE-KEY/property.key.
func CheckPollLock(pl *plan.PollLock) error {
	if strings.TrimSpace(pl.ID) == "" {
		return inputErr("poll lock reference: missing id")
	}
	if pl.Driver != DriverJiraPoll {
		return inputErr("poll lock reference: driver %q is not supported (want %q)", pl.Driver, DriverJiraPoll)
	}
	if _, _, err := SplitProperty(pl.Property); err != nil {
		return err
	}
	return nil
}

// SplitProperty splits a jira-poll lock location `ISSUE-KEY/property.key`
// into the issue key and the entity property key (polllock.ParseRef); a
// malformed location is an *InputError.
func SplitProperty(p string) (issueKey, property string, err error) {
	issueKey, property, err = polllock.ParseRef(p)
	if err != nil {
		return "", "", &InputError{Err: err}
	}
	return issueKey, property, nil
}
