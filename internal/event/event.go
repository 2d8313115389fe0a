// Package event defines NormalizedEvent v1: the one forge-neutral document
// every input driver produces and the core consumes (docs/events.md).
//
// Optional objects are pointers; a nil pointer means "absent" and is omitted
// from JSON. Validation (schema plus the rules a schema cannot express)
// lives in validate.go.
package event

// Entity kinds.
const (
	KindWorkItem       = "work_item"
	KindChangeProposal = "change_proposal"
	KindConversation   = "conversation"
)

// Transition kinds.
const (
	Opened          = "opened"
	Reopened        = "reopened"
	Edited          = "edited"
	Synchronized    = "synchronized"
	Updated         = "updated"
	Closed          = "closed"
	Merged          = "merged"
	MarkedReady     = "marked_ready"
	LabelChanged    = "label_changed"
	CommentAdded    = "comment_added"
	ReviewSubmitted = "review_submitted"
)

// Source systems.
const (
	SystemGitHub   = "github"
	SystemGitLab   = "gitlab"
	SystemJira     = "jira"
	SystemManual   = "manual"
	SystemSchedule = "schedule"
)

// Actor kinds.
const (
	ActorHuman = "human"
	ActorBot   = "bot"
)

// Event is a NormalizedEvent v1.
type Event struct {
	Repo       string     `json:"repo"`
	Entity     Entity     `json:"entity"`
	Transition Transition `json:"transition"`
	Actor      Actor      `json:"actor"`
	State      State      `json:"state"`
	Source     Source     `json:"source"`
}

// Entity is the work item, change proposal or conversation the event is about.
type Entity struct {
	Kind                 string                `json:"kind"`
	ID                   int64                 `json:"id"`
	URL                  string                `json:"url"`
	Key                  string                `json:"key,omitempty"`
	LinkedChangeProposal *LinkedChangeProposal `json:"linked_change_proposal,omitempty"`
}

// LinkedChangeProposal links a work item (e.g. a comment thread on a pull
// request) to the change proposal it belongs to.
type LinkedChangeProposal struct {
	ID  int64  `json:"id"`
	URL string `json:"url"`
}

// Transition says what happened.
type Transition struct {
	Kind    string   `json:"kind"`
	Label   *Label   `json:"label,omitempty"`
	Comment *Comment `json:"comment,omitempty"`
	Review  *Review  `json:"review,omitempty"`
}

// Label is present exactly when Transition.Kind is label_changed.
type Label struct {
	Name   string `json:"name"`
	Action string `json:"action"` // added | removed
}

// Comment is present exactly when Transition.Kind is comment_added.
type Comment struct {
	Body        string `json:"body"`
	ID          string `json:"id,omitempty"`
	ParentID    string `json:"parent_id,omitempty"`
	Command     string `json:"command,omitempty"`
	Instruction string `json:"instruction,omitempty"`
	// Truncated is set when Body (and Instruction) were cut to fit a
	// limit; OriginalLength is then the full body's length in code points.
	Truncated      bool `json:"truncated,omitempty"`
	OriginalLength int  `json:"original_length,omitempty"`
}

// Review is present exactly when Transition.Kind is review_submitted.
type Review struct {
	State      string `json:"state"` // approved | changes_requested | commented | dismissed
	ReviewerID string `json:"reviewer_id"`
}

// Actor is who caused the transition.
type Actor struct {
	ID             string `json:"id"`
	Kind           string `json:"kind"` // human | bot
	Role           Role   `json:"role"` // one of the Role constants (ParseRole)
	IsEntityAuthor bool   `json:"is_entity_author"`
}

// State is the entity's state after the transition.
type State struct {
	Labels []string `json:"labels"`
	// LabelsTruncated is set when Labels is not the entity's whole label
	// list: labels beyond MaxLabels were dropped or names cut to MaxLabel
	// (StateLabels), or labels were dropped to fit a dispatch's inputs
	// (plan.FitInputs).
	LabelsTruncated bool            `json:"labels_truncated,omitempty"`
	ChangeProposal  *ChangeProposal `json:"change_proposal,omitempty"`
	Conversation    *Conversation   `json:"conversation,omitempty"`
}

// ChangeProposal describes a pull or merge request.
type ChangeProposal struct {
	ID       int64  `json:"id"`
	HeadRepo string `json:"head_repo"`
	BaseRepo string `json:"base_repo"`
	HeadRef  string `json:"head_ref"`
	BaseRef  string `json:"base_ref"`
	AuthorID string `json:"author_id"`
	IsFork   bool   `json:"is_fork"`
	HeadSHA  string `json:"head_sha,omitempty"`
}

// Conversation is present exactly when the entity is a conversation.
type Conversation struct {
	Category Category `json:"category"`
}

// Category of a conversation (e.g. a discussion category).
type Category struct {
	Name         string `json:"name"`
	Slug         string `json:"slug,omitempty"`
	IsAnswerable bool   `json:"is_answerable,omitempty"`
}

// Source says where the event came from.
type Source struct {
	System    string `json:"system"`
	RawType   string `json:"raw_type"`
	RawAction string `json:"raw_action,omitempty"`
}
