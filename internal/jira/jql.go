package jira

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

var projectKeyRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,254}$`)

// ValidProjectKey reports whether s is a Jira project key: a letter, then
// letters, digits or underscores (Jira Cloud asks for two characters at
// least; Jira Data Center's configurable pattern can allow one).
func ValidProjectKey(s string) bool { return projectKeyRe.MatchString(s) }

// Quote returns s as a JQL string literal: double quotes, with backslash,
// quote and control characters escaped, so a value can never end the
// literal and inject JQL.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Millis renders t as JQL epoch milliseconds. Jira reads quoted times in
// the user's time zone; epoch milliseconds are unambiguous.
func Millis(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// UpdatedSince is the clause `updated >= <epoch ms>`.
func UpdatedSince(t time.Time) string { return "updated >= " + Millis(t) }

// ProjectIn is `project in ("A", "B")` after validating every key.
func ProjectIn(keys []string) (string, error) {
	return inList("project in", "project key", ValidProjectKey, keys)
}

// KeyIn is `key in ("A-1", "B-2")` after validating every issue key.
func KeyIn(keys []string) (string, error) {
	return inList("key in", "issue key", jirakey.ValidIssue, keys)
}

// NotKeyIn is `NOT key in ("A-1", "B-2")` after validating every issue
// key: the issues not listed, or, where a list naming an issue that no
// longer exists matches nothing, every issue (where such a list is
// refused, the search is).
func NotKeyIn(keys []string) (string, error) {
	in, err := KeyIn(keys)
	if err != nil {
		return "", err
	}
	return "NOT " + in, nil
}

// MaxListValues is how many values a JQL list may hold: Jira Cloud
// refuses larger lists.
const MaxListValues = 1000

// inList is `fieldOp ("A", "B")` (fieldOp: "key in", "project in") after
// checking every value with valid; errors name what (e.g. "issue key")
// and the first invalid value.
func inList(fieldOp, what string, valid func(string) bool, values []string) (string, error) {
	if len(values) == 0 {
		return "", fmt.Errorf("jql: no %ss", what)
	}
	if len(values) > MaxListValues {
		return "", fmt.Errorf("jql: %d %ss, a list holds at most %d", len(values), what, MaxListValues)
	}
	quoted := make([]string, len(values))
	for i, v := range values {
		if !valid(v) {
			return "", fmt.Errorf("jql: invalid %s %q", what, v)
		}
		quoted[i] = Quote(v)
	}
	return fieldOp + " (" + strings.Join(quoted, ", ") + ")", nil
}

// And joins clauses as `(a) AND (b)`, skipping empty ones, so an operator's
// query keeps its own precedence. An ORDER BY inside a clause is moved to
// the end (the first one wins).
func And(clauses ...string) string {
	var parts []string
	order := ""
	for _, c := range clauses {
		where, ob := SplitOrderBy(c)
		if order == "" {
			order = ob
		}
		if where != "" {
			parts = append(parts, "("+where+")")
		}
	}
	out := strings.Join(parts, " AND ")
	if order != "" {
		out += " " + order
	}
	return out
}

// SplitOrderBy separates a query into its restriction and its trailing
// "ORDER BY …" (both trimmed), ignoring text inside quotes.
func SplitOrderBy(q string) (where, orderBy string) {
	var quote byte
	escaped := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case (i == 0 || isSpace(q[i-1])) && hasWordCI(q[i:], "order"):
			j := i + 5
			for j < len(q) && isSpace(q[j]) {
				j++
			}
			if j > i+5 && hasWordCI(q[j:], "by") {
				return strings.TrimSpace(q[:i]), strings.TrimSpace(q[i:])
			}
		}
	}
	return strings.TrimSpace(q), ""
}

// hasWordCI reports whether s starts with the ASCII word w (any case)
// followed by the end or a space.
func hasWordCI(s, w string) bool {
	if len(s) < len(w) || !strings.EqualFold(s[:len(w)], w) {
		return false
	}
	return len(s) == len(w) || isSpace(s[len(w)])
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
