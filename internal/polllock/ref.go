package polllock

import (
	"fmt"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

// FormatRef renders the location of a lock handed to runs (the Property of
// a jira-poll plan.PollLock): "<ISSUE-KEY>/<property key>".
func FormatRef(issueKey, propertyKey string) string { return issueKey + "/" + propertyKey }

// ParseRef splits a lock location "<ISSUE-KEY>/<property key>". The error
// names the reference and the part that is wrong.
func ParseRef(ref string) (issueKey, propertyKey string, err error) {
	issueKey, propertyKey, ok := strings.Cut(ref, "/")
	if !ok {
		return "", "", fmt.Errorf("poll lock reference: property %q: want ISSUE-KEY/property.key", ref)
	}
	if !jirakey.ValidIssue(issueKey) {
		return "", "", fmt.Errorf("poll lock reference: property %q: %q is not a Jira issue key", ref, issueKey)
	}
	if !jirakey.ValidProperty(propertyKey) {
		return "", "", fmt.Errorf("poll lock reference: property %q: %q is not a property key", ref, propertyKey)
	}
	return issueKey, propertyKey, nil
}
