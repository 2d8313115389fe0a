// Package jira is a small Jira Cloud platform REST API v3 client: exactly the
// calls the poll driver and the runner need (enhanced JQL search with inline
// issue properties, issue entity properties, changelogs, comments, myself,
// project roles, statuses), the JQL it builds, and Jira's error
// classification. Requests go through the shared httpx stack (URL policy,
// timeouts, size caps, same-origin redirects, Retry-After, redaction); this
// package adds Jira's auth, rate limiting and per-endpoint call counting.
//
// ReadIssue reads one issue with its comments and changelog (entity
// resolution). Pacing follows the rate-limit headers (pacing.go,
// budgetshare.go) and the 429s themselves (an AIMD ceiling, aimd.go). A
// call's gate (gate.go, WithGate) lets no attempt of a write leave after
// its caller's deadline: ErrNotSent when nothing Jira could apply was
// sent; SentAt is when a read's last attempt left. Every listing is
// bounded (1,000 pages).
package jira

import (
	"encoding/json"
	"time"
)

// SearchRequest is the body of an enhanced search.
type SearchRequest struct {
	JQL             string   `json:"jql"`
	Fields          []string `json:"fields,omitempty"`
	Properties      []string `json:"properties,omitempty"` // at most 5
	Expand          string   `json:"expand,omitempty"`
	MaxResults      int      `json:"maxResults,omitempty"`
	ReconcileIssues []int64  `json:"reconcileIssues,omitempty"` // at most 50
}

// Issue is one search result.
type Issue struct {
	ID         string                     `json:"id"`
	Key        string                     `json:"key"`
	Fields     Fields                     `json:"fields"`
	Properties map[string]json.RawMessage `json:"properties,omitempty"`
	// Changelog is present when the search asked for expand=changelog.
	Changelog *IssueChangelog `json:"changelog,omitempty"`
}

// IssueChangelog is the changelog embedded in an issue (Jira's
// PageOfChangelogs), oldest history first.
type IssueChangelog struct {
	StartAt    int       `json:"startAt"`
	MaxResults int       `json:"maxResults"`
	Total      int       `json:"total"`
	Histories  []History `json:"histories"`
}

// Fields are the issue fields fullsend reads.
type Fields struct {
	Summary  string   `json:"summary"`
	Labels   []string `json:"labels"`
	Created  Time     `json:"created"`
	Updated  Time     `json:"updated"`
	Status   *Status  `json:"status,omitempty"`
	Reporter *User    `json:"reporter,omitempty"`
	Creator  *User    `json:"creator,omitempty"`
	Project  *Project `json:"project,omitempty"`
	// The fields an entity needs besides (EntityFields): present only
	// when asked for.
	Description    json.RawMessage `json:"description,omitempty"` // ADF, or null
	Assignee       *User           `json:"assignee,omitempty"`
	ResolutionDate *Time           `json:"resolutiondate,omitempty"`
	Comment        *CommentPage    `json:"comment,omitempty"`
}

// Status of an issue.
type Status struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	StatusCategory StatusCategory `json:"statusCategory"`
}

// StatusCategory key is one of new, indeterminate, done.
type StatusCategory struct {
	ID  int    `json:"id"`
	Key string `json:"key"`
}

// Project reference.
type Project struct {
	ID  string `json:"id"`
	Key string `json:"key"`
}

// User is a Jira account. AccountType is atlassian, app or customer.
type User struct {
	AccountID   string `json:"accountId"`
	AccountType string `json:"accountType"`
	DisplayName string `json:"displayName"`
}

// Comment on an issue. Body is Atlassian Document Format; Text is its plain
// text rendering, filled by the client.
type Comment struct {
	ID       string          `json:"id"`
	Author   User            `json:"author"`
	Body     json.RawMessage `json:"body"`
	Text     string          `json:"-"`
	Created  Time            `json:"created"`
	Updated  Time            `json:"updated"`
	ParentID string          `json:"parentId,omitempty"`
	// UpdateAuthor is who last edited the comment (the author when never
	// edited); nil when Jira does not say.
	UpdateAuthor *User `json:"updateAuthor,omitempty"`
}

// History is one changelog entry.
type History struct {
	ID      string       `json:"id"`
	Author  User         `json:"author"`
	Created Time         `json:"created"`
	Items   []ChangeItem `json:"items"`
}

// ChangeItem is one field change inside a history.
type ChangeItem struct {
	Field      string `json:"field"`
	FieldID    string `json:"fieldId"`
	FieldType  string `json:"fieldtype"`
	From       string `json:"from"`
	FromString string `json:"fromString"`
	To         string `json:"to"`
	ToString   string `json:"toString"`
}

// Time is a Jira timestamp ("2006-01-02T15:04:05.000-0700").
type Time struct{ time.Time }
