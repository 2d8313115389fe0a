package ghactions

import "strings"

// EventsFile is the event-driven workflow Generate writes.
const EventsFile = "fullsend-events.yml"

// trigger is one event of fullsend-events.yml with its activity types.
type trigger struct {
	Event string
	Types []string
}

// TypesList renders the types as a YAML flow sequence.
func (t trigger) TypesList() string { return "[" + strings.Join(t.Types, ", ") + "]" }

// eventTriggers are the events and actions the gha-event input driver
// maps (its package documentation lists them). pull_request_target is
// left out on purpose: it hands secrets and a write token to runs started
// by fork pull requests.
var eventTriggers = []trigger{
	{"issues", []string{"opened", "reopened", "edited", "closed", "labeled", "unlabeled"}},
	{"issue_comment", []string{"created"}},
	{"pull_request", []string{"opened", "reopened", "synchronize", "edited", "closed", "ready_for_review", "labeled", "unlabeled"}},
	{"pull_request_review", []string{"submitted"}},
}
