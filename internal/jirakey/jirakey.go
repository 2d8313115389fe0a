// Package jirakey is the syntax of the Jira identifiers fullsend reads and
// writes: issue keys and entity property keys. It is the one rule every
// layer uses (the client, the configuration, the poller and its documents).
package jirakey

import (
	"regexp"
	"strings"
)

// MaxPropertyChars is Jira's limit on an issue entity property key.
const MaxPropertyChars = 255

var (
	// issueKeyRE is a Jira issue key: a project key (a letter, then
	// letters, digits or underscores: Jira Data Center's project key
	// pattern can allow a single letter), a dash and a number without a
	// leading zero (0 included: imported issues can carry it). It is the
	// one issue-key rule of the poller, its JQL and its locks.
	issueKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*-(0|[1-9][0-9]*)$`)
	// propKeyRE is a poll document's property key as PollProperty builds it from
	// a repository slug (whose segments are [A-Za-z0-9._-]).
	propKeyRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,255}$`)
)

// ValidIssue reports whether s is a Jira issue key such as PROJ-123.
func ValidIssue(s string) bool { return issueKeyRE.MatchString(s) }

// ValidProperty reports whether s can be a lock property key: 1 to
// MaxPropertyChars letters, digits, '.', '_' or '-'.
func ValidProperty(s string) bool { return propKeyRE.MatchString(s) }

// PollPrefix begins the property key of every document the pollers keep
// on Jira.
const PollPrefix = "fullsend.poll."

// PollProperty is the property key of the pollers' document doc (lock,
// lastCheck, cursor, receipts, quarantine) of a target repo `owner/repo`
// (nested paths keep every segment): fullsend.poll.{owner}.{repo}.{doc}.
func PollProperty(repo, doc string) string {
	return PollPrefix + strings.ReplaceAll(repo, "/", ".") + "." + doc
}
