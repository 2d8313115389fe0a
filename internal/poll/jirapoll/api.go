package jirapoll

import (
	"context"
	"encoding/json"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
)

// JiraAPI is the part of the Jira client the driver uses; *jira.Client
// implements it. Each embedded interface is one concern of the driver.
type JiraAPI interface {
	Searcher
	Properties
	ChangeReader
	Directory
}

// Searcher finds issues: discovery, the consistent re-reads before locking
// and dispatch, seeding and cancel's existence check.
type Searcher interface {
	// Search runs an enhanced search, following pages until the last one
	// or until limit issues were collected (limit <= 0: no limit).
	Search(ctx context.Context, req jira.SearchRequest, limit int) ([]jira.Issue, error)
}

// Properties reads and writes the lock and lastCheck issue properties.
type Properties interface {
	// GetProperty reads an issue entity property; found is false on 404.
	GetProperty(ctx context.Context, issueKey, property string) (value json.RawMessage, found bool, err error)
	// SetProperty writes an issue entity property (value marshalled to JSON).
	SetProperty(ctx context.Context, issueKey, property string, value any) error
	// DeleteProperty removes an issue entity property; found is false on 404.
	DeleteProperty(ctx context.Context, issueKey, property string) (found bool, err error)
}

// ChangeReader reads what changed on issues: change detection.
type ChangeReader interface {
	// BulkChangelogs fetches the changelogs of many issues, keyed by issue
	// key, oldest history first; fieldIDs filters when non-empty.
	BulkChangelogs(ctx context.Context, issueKeys []string, fieldIDs []string) (map[string][]jira.History, error)
	// CommentsSince lists the comments created or updated after since,
	// newest first, with Text rendered.
	CommentsSince(ctx context.Context, issueKey string, since time.Time) ([]jira.Comment, error)
}

// Directory answers the cached lookups that mapping a change needs.
type Directory interface {
	// Myself returns the authenticated account (the tool's own).
	Myself(ctx context.Context) (jira.User, error)
	// RoleOf maps an account's project roles to a NormalizedEvent role.
	RoleOf(ctx context.Context, projectKey, accountID string) (event.Role, error)
	// StatusCategory returns the category key (new, indeterminate, done)
	// of a status id or name.
	StatusCategory(ctx context.Context, idOrName string) (string, error)
}

var _ JiraAPI = (*jira.Client)(nil)
