// Package plan defines a planned agent run — the unit the core hands to an
// output driver — and its projection into the ten string dispatch inputs of
// docs/github.md ("Configuration"), which every output driver and `fullsend run` share.
// The tenth, normalized_entity, is sent only by runs of entity-source
// harnesses: an event-only run's inputs are the nine they always were.
package plan

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// Run is one agent run to start: one harness, one event, one scope.
type Run struct {
	Harness  string // harness name
	Role     string // harness role
	Workflow string // per-harness gha-dispatch workflow override, may be empty
	Event    *event.Event
	Key      scope.Key
	WorkItem WorkItem
	PollLock *PollLock // nil outside polling
	// Entity is the entity the harness's trigger saw (its activity
	// filtered for the harness's min_role): set on runs of entity-source
	// harnesses only, nil on event-only runs.
	Entity *entity.Entity
}

// Settles reports whether a forge's output settles r after dispatching
// it (newest.Settle): r carries an idempotency key and its scope is a
// subject of system, the one kind of change two paths (the platform's
// event path and its backstop poller) may both dispatch.
func (r Run) Settles(system string) bool {
	if r.WorkItem.IdempotencyKey == "" {
		return false
	}
	_, _, s, err := scope.Parse(r.Key)
	return err == nil && s.System == system
}

// WorkItem identifies the work item a run is about, for the runner.
type WorkItem struct {
	URL    string `json:"url"`
	Source string `json:"source"`
	Key    string `json:"key"`
	// IdempotencyKey is set on runs a poller dispatches
	// (changepos.KeyAt), so that the platform records it.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Attribution is set on scheduled runs (no event prompted them).
	Attribution *Attribution `json:"attribution,omitempty"`
}

// PollLock is what a runner needs to find and maintain the poll lock.
type PollLock struct {
	ID       string `json:"id"`       // poller-issued lock id
	Driver   string `json:"driver"`   // input driver, e.g. jira-poll
	Property string `json:"property"` // where the lock lives, e.g. PROJ-1/fullsend.poll.acme.platform.lock
}

// Ref is a reference to a started run, as recorded in a poll lock's `runs`.
type Ref struct {
	Driver string `json:"driver"`
	ID     string `json:"id"`
	URL    string `json:"url"`
}

// Input names, in the order docs/github.md lists them.
const (
	InAgent            = "agent"
	InRole             = "role"
	InSourceRepo       = "source_repo"
	InEventType        = "event_type"
	InEventPayload     = "event_payload"
	InNormalizedEvent  = "normalized_event"
	InSerializationKey = "serialization_key"
	InWorkItem         = "work_item"
	InPollLock         = "poll_lock"
	// InNormalizedEntity is the NormalizedEntity the harness's trigger saw
	// (Run.Entity), compact JSON; absent from the inputs of event-only runs.
	InNormalizedEntity = "normalized_entity"
)

// Always lists the nine inputs every run sends, in order.
var Always = []string{InAgent, InRole, InSourceRepo, InEventType, InEventPayload,
	InNormalizedEvent, InSerializationKey, InWorkItem, InPollLock}

// Names lists the ten input names in order: Always, then
// normalized_entity, which only runs of entity-source harnesses send.
var Names = append(Always[:len(Always):len(Always)], InNormalizedEntity)

// EnvVar is the environment variable through which a CI workflow hands the
// dispatch input name to `fullsend run`: FULLSEND_ plus the upper-cased name
// (FULLSEND_NORMALIZED_EVENT, FULLSEND_POLL_LOCK, ...).
func EnvVar(input string) string { return "FULLSEND_" + strings.ToUpper(input) }

// WorkItemOf derives the work item reference from an event.
func WorkItemOf(ev *event.Event) WorkItem {
	return WorkItem{URL: ev.Entity.URL, Source: ev.Source.System, Key: ev.Entity.Key}
}

// Inputs renders r as the string dispatch inputs (nine, ten with an
// entity), within MaxInputsSize: an entity or a comment too long for them
// is cut and marked truncated (FitInputs). Inputs that cannot fit are
// rendered whole; the platform then refuses the dispatch, and the poller
// counts the failure.
func (r Run) Inputs() map[string]string {
	if in, err := r.FitInputs(MaxInputsSize); err == nil {
		return in
	}
	return r.render(r.Event, r.Entity)
}

// render renders r with ev and en as the string dispatch inputs:
// normalized_entity only when en is not nil.
func (r Run) render(ev *event.Event, en *entity.Entity) map[string]string {
	ne := compact(ev)
	wi := compact(r.WorkItem)
	lock := ""
	if r.PollLock != nil {
		lock = compact(r.PollLock)
	}
	in := map[string]string{
		InAgent:            r.Harness,
		InRole:             r.Role,
		InSourceRepo:       ev.Repo,
		InEventType:        ev.Transition.Kind,
		InEventPayload:     Payload(ev),
		InNormalizedEvent:  ne,
		InSerializationKey: string(r.Key),
		InWorkItem:         wi,
		InPollLock:         lock,
	}
	if en != nil {
		in[InNormalizedEntity] = compact(en)
	}
	return in
}

// Payload is the compact GitHub-shaped projection of ev used as the
// event_payload input: {"issue":{…}} for work items, {"pull_request":{…}}
// for change proposals, plus {"comment":{"body":…}} when a comment is present.
func Payload(ev *event.Event) string {
	type ref struct {
		Number  int64  `json:"number"`
		HTMLURL string `json:"html_url"`
	}
	type comment struct {
		Body string `json:"body"`
	}
	p := struct {
		Issue       *ref     `json:"issue,omitempty"`
		PullRequest *ref     `json:"pull_request,omitempty"`
		Comment     *comment `json:"comment,omitempty"`
	}{}
	switch {
	case ev.Entity.Kind == event.KindChangeProposal:
		p.PullRequest = &ref{ev.Entity.ID, ev.Entity.URL}
	case ev.Entity.LinkedChangeProposal != nil:
		p.Issue = &ref{ev.Entity.ID, ev.Entity.URL}
		p.PullRequest = &ref{ev.Entity.LinkedChangeProposal.ID, ev.Entity.LinkedChangeProposal.URL}
	default:
		p.Issue = &ref{ev.Entity.ID, ev.Entity.URL}
	}
	if c := ev.Transition.Comment; c != nil {
		p.Comment = &comment{Body: c.Body}
	}
	return compact(p)
}

// compact renders v as compact JSON without HTML escaping: GitHub limits
// the dispatch inputs to 65,535 characters in all, and escaping <, > and &
// as \u003c… would triple what a comment full of them costs.
func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the values are plain structs: encoding cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}
