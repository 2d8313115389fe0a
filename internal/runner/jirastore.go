package runner

import (
	"context"
	"encoding/json"

	"github.com/fullsend-dev/fullsend/internal/jira"
)

// JiraProperties is the part of the Jira client the runner uses: issue
// entity properties (GET/PUT/DELETE /rest/api/3/issue/{key}/properties/{prop}).
// *jira.Client implements it.
type JiraProperties interface {
	// GetProperty reads a property; found is false when it does not exist.
	GetProperty(ctx context.Context, issueKey, property string) (value json.RawMessage, found bool, err error)
	// SetProperty writes a property (value marshalled to JSON).
	SetProperty(ctx context.Context, issueKey, property string, value any) error
	// DeleteProperty removes a property; found is false when it was gone.
	DeleteProperty(ctx context.Context, issueKey, property string) (found bool, err error)
}

var _ JiraProperties = (*jira.Client)(nil)

// JiraStore keeps poll locks in Jira issue entity properties.
type JiraStore struct{ API JiraProperties }

// Get reads the property; found is false when it does not exist.
func (s JiraStore) Get(ctx context.Context, issueKey, property string) ([]byte, bool, error) {
	v, found, err := s.API.GetProperty(ctx, issueKey, property)
	return []byte(v), found, err
}

// Put writes raw (a JSON document) as the property value, unchanged.
func (s JiraStore) Put(ctx context.Context, issueKey, property string, raw []byte) error {
	return s.API.SetProperty(ctx, issueKey, property, json.RawMessage(raw))
}

// Delete removes the property; a property that is already gone is not an
// error.
func (s JiraStore) Delete(ctx context.Context, issueKey, property string) error {
	_, err := s.API.DeleteProperty(ctx, issueKey, property)
	return err
}
