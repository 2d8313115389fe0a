package jira

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

// Issue entity property limits (Jira Cloud).
const (
	MaxPropertyValueChars = 32768
)

const propertyTemplate = "/rest/api/3/issue/{issueIdOrKey}/properties/{propertyKey}"

func propertyCall(method, issueKey, property string) call {
	return call{
		method:   method,
		template: propertyTemplate,
		path:     "/rest/api/3/issue/" + pathEscape(issueKey) + "/properties/" + pathEscape(property),
		retry:    true,
	}
}

func checkPropertyArgs(issueKey, property string) error {
	if issueKey == "" {
		return fmt.Errorf("jira property %q: empty issue key", property)
	}
	if property == "" || utf8.RuneCountInString(property) > jirakey.MaxPropertyChars {
		return fmt.Errorf("jira property on %s: key must have 1 to %d characters", issueKey, jirakey.MaxPropertyChars)
	}
	return nil
}

// entityProperty is Jira's EntityProperty.
type entityProperty struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// GetProperty reads an issue entity property. found is false on 404.
func (c *Client) GetProperty(ctx context.Context, issueKey, property string) (json.RawMessage, bool, error) {
	if err := checkPropertyArgs(issueKey, property); err != nil {
		return nil, false, err
	}
	return c.getProperty(ctx, propertyCall("GET", issueKey, property), issueKey, property)
}

// getProperty performs a GET of an entity property (issue, user or project).
func (c *Client) getProperty(ctx context.Context, cl call, owner, property string) (json.RawMessage, bool, error) {
	_, body, err := c.do(ctx, cl)
	if IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var ep entityProperty
	if err := decode(cl, body, &ep); err != nil {
		return nil, false, err
	}
	if len(ep.Value) == 0 {
		return nil, false, fmt.Errorf("jira %s (%s %s): response has no value", cl.endpoint(), owner, property)
	}
	return ep.Value, true, nil
}

// SetProperty writes an issue entity property (value marshalled to
// JSON). The JSON value must be non-empty and at most
// MaxPropertyValueChars characters.
func (c *Client) SetProperty(ctx context.Context, issueKey, property string, value any) error {
	if err := checkPropertyArgs(issueKey, property); err != nil {
		return err
	}
	return c.setProperty(ctx, propertyCall("PUT", issueKey, property), issueKey, property, value)
}

// setProperty performs a PUT of an entity property after checking value.
func (c *Client) setProperty(ctx context.Context, cl call, owner, property string, value any) error {
	raw, err := propertyValue(owner, property, value)
	if err != nil {
		return err
	}
	cl.body = json.RawMessage(raw)
	_, _, err = c.do(ctx, cl)
	return err
}

// propertyValue encodes value and checks Jira's limits.
func propertyValue(owner, property string, value any) ([]byte, error) {
	var raw []byte
	if rm, ok := value.(json.RawMessage); ok {
		if !json.Valid(rm) {
			return nil, fmt.Errorf("jira property %s on %s: value is not valid JSON", property, owner)
		}
		raw = rm
	} else {
		b, err := json.Marshal(value)
		if err != nil {
			return nil, fmt.Errorf("jira property %s on %s: encoding value: %v", property, owner, err)
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("jira property %s on %s: value must not be empty", property, owner)
	}
	if n := utf8.RuneCount(raw); n > MaxPropertyValueChars {
		return nil, fmt.Errorf("jira property %s on %s: value has %d characters, Jira allows %d", property, owner, n, MaxPropertyValueChars)
	}
	return raw, nil
}

// DeleteProperty removes an issue entity property; found is false on 404.
func (c *Client) DeleteProperty(ctx context.Context, issueKey, property string) (bool, error) {
	if err := checkPropertyArgs(issueKey, property); err != nil {
		return false, err
	}
	_, _, err := c.do(ctx, propertyCall("DELETE", issueKey, property))
	if IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}
