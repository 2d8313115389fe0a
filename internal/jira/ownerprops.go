package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

// Owner names the non-issue entity an entity property is stored on: the
// calling user's own record (Kind "user", ID its accountId: needs only
// access to Jira) or a project (Kind "project", ID its key: reading needs
// Browse Projects, writing Administer Projects).
type Owner struct {
	Kind string // "user" or "project"
	ID   string // accountId or project key
}

// Owner kinds.
const (
	OwnerUser    = "user"
	OwnerProject = "project"
)

func (o Owner) String() string { return o.Kind + " " + o.ID }

const (
	userPropertyTemplate    = "/rest/api/3/user/properties/{propertyKey}"
	projectPropertyTemplate = "/rest/api/3/project/{projectIdOrKey}/properties/{propertyKey}"
)

// ownerCall builds the call of method on property of o, or an error for a
// bad owner or key.
func ownerCall(method string, o Owner, property string) (call, error) {
	if property == "" || utf8.RuneCountInString(property) > jirakey.MaxPropertyChars {
		return call{}, fmt.Errorf("jira property on %s: key must have 1 to %d characters", o, jirakey.MaxPropertyChars)
	}
	switch o.Kind {
	case OwnerUser:
		if o.ID == "" {
			return call{}, fmt.Errorf("jira user property %q: empty accountId", property)
		}
		return call{method: method, template: userPropertyTemplate, retry: true,
			path:  "/rest/api/3/user/properties/" + pathEscape(property),
			query: url.Values{"accountId": {o.ID}}}, nil
	case OwnerProject:
		if !ValidProjectKey(o.ID) {
			return call{}, fmt.Errorf("jira project property %q: %q is not a project key", property, o.ID)
		}
		return call{method: method, template: projectPropertyTemplate, retry: true,
			path: "/rest/api/3/project/" + pathEscape(o.ID) + "/properties/" + pathEscape(property)}, nil
	}
	return call{}, fmt.Errorf("jira property %q: unknown owner kind %q (want user or project)", property, o.Kind)
}

// GetOwnerProperty reads a user or project entity property; found is
// false on 404 (no such property).
func (c *Client) GetOwnerProperty(ctx context.Context, o Owner, property string) (json.RawMessage, bool, error) {
	cl, err := ownerCall("GET", o, property)
	if err != nil {
		return nil, false, err
	}
	return c.getProperty(ctx, cl, o.String(), property)
}

// SetOwnerProperty writes a user or project entity property (value
// marshalled to JSON, with the limits of SetProperty).
func (c *Client) SetOwnerProperty(ctx context.Context, o Owner, property string, value any) error {
	cl, err := ownerCall("PUT", o, property)
	if err != nil {
		return err
	}
	return c.setProperty(ctx, cl, o.String(), property, value)
}
