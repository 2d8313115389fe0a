package runner

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/drivers"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// DriverJiraPoll is the only poll-lock driver this runner knows.
const DriverJiraPoll = drivers.JiraPoll

var (
	issueKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]+-[0-9]+$`)
	propKeyRE  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,255}$`)
)

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
// into the issue key and the entity property key.
func SplitProperty(p string) (issueKey, property string, err error) {
	issueKey, property, ok := strings.Cut(p, "/")
	if !ok {
		return "", "", inputErr("poll lock reference: property %q: want ISSUE-KEY/property.key", p)
	}
	if !issueKeyRE.MatchString(issueKey) {
		return "", "", inputErr("poll lock reference: property %q: %q is not a Jira issue key", p, issueKey)
	}
	if !propKeyRE.MatchString(property) {
		return "", "", inputErr("poll lock reference: property %q: %q is not a property key", p, property)
	}
	return issueKey, property, nil
}
