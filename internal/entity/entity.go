// Package entity defines NormalizedEntity v1: the forge-neutral current
// state of one work item or change proposal (a Jira issue, a GitHub issue
// or pull request, a GitLab issue or merge request) with its bounded,
// action-indicating activity (docs/entities.md).
//
// The contract reuses NormalizedEvent v1's vocabulary (internal/event):
// the repository slug, Jira key, URL and id rules, the actor and its
// event.Role ladder, the label and comment bounds and the first-line
// command rule. Its embedded JSON Schema references the event schema's
// definitions instead of restating them.
package entity

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Source systems an entity comes from (a subset of event's).
const (
	SystemJira   = event.SystemJira
	SystemGitHub = event.SystemGitHub
	SystemGitLab = event.SystemGitLab
)

// Systems lists the source systems an entity may come from.
func Systems() []string { return []string{SystemJira, SystemGitHub, SystemGitLab} }

// Entity kinds (event's, without conversations).
const (
	KindWorkItem       = event.KindWorkItem
	KindChangeProposal = event.KindChangeProposal
)

// Activity element kinds.
const (
	ElementBody    = "body"    // the entity's own description, by its author
	ElementComment = "comment" // a comment or note
	ElementReview  = "review"  // a review of a change proposal
	ElementLabel   = "label"   // a label application
)

// Status categories.
const (
	StatusTodo       = "todo"
	StatusInProgress = "in_progress"
	StatusDone       = "done"
)

// Bounds of the contract, as the embedded schema states them.
const (
	// MaxActivity is the most activity elements an entity carries: the
	// newest ones; when older elements were cut ActivityTruncated is set.
	MaxActivity = 50
	// MaxAssignees is the most assignees listed in state.assignees.
	MaxAssignees = 100
	// MaxTitle is the longest title, in code points.
	MaxTitle = 1024
	// MaxVersion is the longest version string.
	MaxVersion = 256
)

// Entity is a NormalizedEntity v1.
type Entity struct {
	Source Source `json:"source"`
	Kind   string `json:"kind"`
	ID     int64  `json:"id"`
	Key    string `json:"key,omitempty"`
	URL    string `json:"url"`
	// Repo is the target repository, as event.Event.Repo.
	Repo string `json:"repo"`
	// LinkedChangeProposal ties a work item to its change proposal, as in
	// events; never set on a change proposal.
	LinkedChangeProposal *event.LinkedChangeProposal `json:"linked_change_proposal,omitempty"`
	State                State                       `json:"state"`
	// Version changes whenever the state or the activity changes
	// (ComputeVersion).
	Version string `json:"version"`
	// Activity holds the action-indicating elements, newest first, at most
	// MaxActivity.
	Activity []Element `json:"activity"`
	// ActivityTruncated is set when older elements were cut.
	ActivityTruncated bool `json:"activity_truncated,omitempty"`
	// Receipt is the last recorded run on this entity; nil when none.
	Receipt *Receipt `json:"receipt"`
}

// Source says which system the entity lives in.
type Source struct {
	System string `json:"system"` // jira | github | gitlab
}

// State is the entity's current state.
type State struct {
	Title           string    `json:"title"`
	Status          string    `json:"status"`          // the system's own status name
	StatusCategory  string    `json:"status_category"` // todo | in_progress | done
	Labels          []string  `json:"labels"`
	LabelsTruncated bool      `json:"labels_truncated,omitempty"`
	Assignees       []string  `json:"assignees"`
	Author          string    `json:"author"`
	Created         time.Time `json:"created"`
	Updated         time.Time `json:"updated"`
	Closed          time.Time `json:"closed,omitzero"`
	Merged          time.Time `json:"merged,omitzero"`
	// ChangeProposal is present exactly when the entity is a change
	// proposal.
	ChangeProposal *ChangeProposal `json:"change_proposal,omitempty"`
}

// ChangeProposal is the state only a pull or merge request has.
type ChangeProposal struct {
	Draft   bool   `json:"draft"`
	Fork    bool   `json:"fork"`
	HeadRef string `json:"head_ref"`
	BaseRef string `json:"base_ref"`
	HeadSHA string `json:"head_sha,omitempty"`
}

// Element is one action-indicating element of the activity: actor-
// originated history whose content or state can request a run.
type Element struct {
	Kind    string    `json:"kind"` // body | comment | review | label
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	// Actor is who wrote or applied it; Actor.Role is the actor's current
	// role, resolved at evaluation time.
	Actor event.Actor `json:"actor"`
	// Text elements (body, comment, review): the text cut to
	// event.MaxCommentBody, and the command and instruction of its first
	// line (event.ParseCommand).
	Body           string `json:"body,omitempty"`
	Command        string `json:"command,omitempty"`
	Instruction    string `json:"instruction,omitempty"`
	Truncated      bool   `json:"truncated,omitempty"`
	OriginalLength int    `json:"original_length,omitempty"`
	// Label is the label applied (label elements only).
	Label string `json:"label,omitempty"`
	// ReviewState is the review's verdict (review elements only).
	ReviewState string `json:"review_state,omitempty"`
}

// Receipt records a run on the entity (filled in by scheduled
// reconciliation; not written yet).
type Receipt struct {
	Version  string    `json:"version"` // the entity version the run saw
	At       time.Time `json:"at"`
	Run      string    `json:"run"`     // the run's id or URL
	Outcome  string    `json:"outcome"` // succeeded | failed | timed_out | cancelled
	Attempts int       `json:"attempts"`
}

// TextElement builds a body, comment or review element from its full
// text with the event package's comment rule (event.CommentOf): the text
// cut to event.MaxCommentBody code points and marked truncated, the
// command and instruction read from its first line.
func TextElement(kind, id string, created time.Time, actor event.Actor, text string) Element {
	c := event.CommentOf(text)
	return Element{
		Kind: kind, ID: id, Created: created, Actor: actor,
		Body: c.Body, Command: c.Command, Instruction: c.Instruction,
		Truncated: c.Truncated, OriginalLength: c.OriginalLength,
	}
}
