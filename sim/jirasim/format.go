package jirasim

import (
	"encoding/json"
	"regexp"
	"strings"
)

// This file holds the emulator's own copy of the Jira Cloud wire formats it
// serves. It deliberately does not use the client's encoders
// (internal/jira): a bug in the client's encoding must show up as a
// mismatch against the emulator, not be mirrored by it.

// jiraTimeLayout is how Jira Cloud REST v3 writes timestamps, e.g.
// "2024-01-17T12:34:56.789+0000": milliseconds and an offset without colon.
const jiraTimeLayout = "2006-01-02T15:04:05.000-0700"

// rfc3339Millis is the same timestamp with a colon in the offset, which is
// what the OpenAPI description's date-time format (RFC 3339) demands.
const rfc3339Millis = "2006-01-02T15:04:05.000-07:00"

// User is a Jira account as the user object of REST v3 names its fields.
// It is an alias of an unnamed struct so that callers holding another
// struct with the same fields and tags can pass it without a conversion.
type User = struct {
	AccountID   string `json:"accountId"`
	AccountType string `json:"accountType"`
	DisplayName string `json:"displayName"`
}

// changeItem is one field change of a changelog history.
type changeItem struct {
	field, fieldID, fieldType string
	from, fromString          string
	to, toString              string
}

// Project keys start with a letter followed by letters, digits or
// underscores (one letter alone is allowed, as Jira Data Center's project
// key pattern can be configured to); issue keys are a project key, a dash
// and a number without a leading zero.
// Lower case is accepted (and upper-cased) the way Jira accepts it in JQL.
var (
	projectKeyPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,254}$`)
	issueKeyPattern   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*-(0|[1-9][0-9]*)$`)
)

func validProjectKey(s string) bool { return projectKeyPattern.MatchString(s) }
func validIssueKey(s string) bool   { return issueKeyPattern.MatchString(s) }

// adfNode is one node of an Atlassian Document Format document.
type adfNode struct {
	Type    string    `json:"type"`
	Text    string    `json:"text,omitempty"`
	Content []adfNode `json:"content,omitempty"`
}

// adfDocument is the root of an ADF document: type "doc", version 1 and an
// array of block nodes (https://developer.atlassian.com/cloud/jira/platform/apis/document/structure/).
type adfDocument struct {
	Type    string    `json:"type"`
	Version int       `json:"version"`
	Content []adfNode `json:"content"`
}

// textADF renders plain text as an ADF document with one paragraph node per
// non-empty line, each holding a single text node: what Jira stores for a
// comment typed as plain lines.
func textADF(text string) json.RawMessage {
	doc := adfDocument{Type: "doc", Version: 1, Content: []adfNode{}}
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		doc.Content = append(doc.Content, adfNode{Type: "paragraph", Content: []adfNode{{Type: "text", Text: line}}})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic("jirasim: encoding an ADF document: " + err.Error())
	}
	return b
}
