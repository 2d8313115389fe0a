package runner

import (
	"context"
	"encoding/json"

	"github.com/fullsend-dev/fullsend/internal/jira"
)

// JiraStore keeps poll locks in Jira issue entity properties through
// jira.API (GET/PUT/DELETE /rest/api/3/issue/{key}/properties/{prop}).
type JiraStore struct{ API jira.API }

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
