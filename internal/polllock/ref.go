package polllock

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxPropertyKeyChars is Jira's limit on an issue entity property key.
const MaxPropertyKeyChars = 255

var (
	// issueKeyRE is a Jira issue key: a project key (a letter, then
	// letters, digits or underscores: Jira Data Center's project key
	// pattern can allow a single letter), a dash and a number without a
	// leading zero (0 included: imported issues can carry it). It is the
	// one issue-key rule of the poller, its JQL and its locks.
	issueKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*-(0|[1-9][0-9]*)$`)
	// propKeyRE is a lock or lastCheck property key as Keys builds it from
	// a repository slug (whose segments are [A-Za-z0-9._-]).
	propKeyRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,255}$`)
)

// ValidIssueKey reports whether s is a Jira issue key such as PROJ-123.
func ValidIssueKey(s string) bool { return issueKeyRE.MatchString(s) }

// ValidPropertyKey reports whether s can be a lock property key: 1 to
// MaxPropertyKeyChars letters, digits, '.', '_' or '-'.
func ValidPropertyKey(s string) bool { return propKeyRE.MatchString(s) }

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
	if !ValidIssueKey(issueKey) {
		return "", "", fmt.Errorf("poll lock reference: property %q: %q is not a Jira issue key", ref, issueKey)
	}
	if !ValidPropertyKey(propertyKey) {
		return "", "", fmt.Errorf("poll lock reference: property %q: %q is not a property key", ref, propertyKey)
	}
	return issueKey, propertyKey, nil
}
