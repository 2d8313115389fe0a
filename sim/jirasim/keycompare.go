package jirasim

import (
	"fmt"
	"strconv"
	"strings"
)

// KeyComparison is how JQL compares issue keys and ids with >, >=, < and
// <= (Options.KeyComparison). Atlassian documents id, key and issuekey as
// one clause whose comparisons are between issue keys, which allows more
// than one reading; each is selectable here, the strictest by default.
// Equality and lists (=, !=, in, not in) mean the same under every one.
type KeyComparison string

const (
	// KeysPerProject compares by issue number within the operand's
	// project: `id > 10042` is the issues of 10042's project numbered
	// after it, and an operand that names no issue (`id > 0`, a deleted
	// issue) is a 400. ORDER BY id orders as ORDER BY key (project, then
	// number). The default.
	KeysPerProject KeyComparison = ""
	// KeysPerProjectEmpty compares as KeysPerProject, except that an
	// operand that names no issue makes the comparison match nothing
	// instead of a 400 (as third parties describe the enhanced search).
	KeysPerProjectEmpty KeyComparison = "per-project-empty"
	// KeysNumeric compares issue ids as numbers across projects, any
	// number (existing or not) being an operand and an issue key standing
	// for its id; ORDER BY id orders by id.
	KeysNumeric KeyComparison = "numeric"
	// KeysRejected answers every comparison with a 400 ("The operator '>'
	// is not supported by the 'id' field."); ORDER BY id orders as ORDER
	// BY key.
	KeysRejected KeyComparison = "rejected"
)

// validKeyComparison panics on a value New does not know (test setup).
func validKeyComparison(k KeyComparison) {
	switch k {
	case KeysPerProject, KeysPerProjectEmpty, KeysNumeric, KeysRejected:
		return
	}
	panic(fmt.Sprintf("jirasim: unknown KeyComparison %q", k))
}

// isKeyComparison reports whether c compares issue keys or ids.
func isKeyComparison(c *clause) bool {
	if c.field != "id" && c.field != "key" {
		return false
	}
	switch c.op {
	case ">", ">=", "<", "<=":
		return true
	}
	return false
}

// compileKeyComparison compiles `id|key|issuekey op value` under the
// server's reading (s.mu held).
func (s *Server) compileKeyComparison(c *clause) (pred, error) {
	v := c.values[0].text
	switch s.opts.KeyComparison {
	case KeysRejected:
		return nil, jqlErrf("The operator '%s' is not supported by the '%s' field.", c.op, c.name)
	case KeysNumeric:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			is := s.liveIssue(v)
			if is == nil {
				return nil, jqlErrf("An issue with key '%s' does not exist for field '%s'.", v, c.name)
			}
			n = is.id
		}
		return func(is *issue, _ issueState) bool { return compareInt(is.id, c.op, n) }, nil
	}
	op := s.liveIssue(v)
	switch {
	case op == nil && s.opts.KeyComparison == KeysPerProjectEmpty:
		return func(*issue, issueState) bool { return false }, nil
	case op == nil:
		return nil, jqlErrf("An issue with key '%s' does not exist for field '%s'.", v, c.name)
	}
	return func(is *issue, _ issueState) bool {
		return is.project == op.project && compareInt(int64(is.num), c.op, int64(op.num))
	}, nil
}

// liveIssue is the issue an operand names, by id or by key; nil when it
// names none or a deleted one.
func (s *Server) liveIssue(v string) *issue {
	var is *issue
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		is = s.byID[n]
	} else if k := strings.ToUpper(v); validIssueKey(k) {
		is = s.issues[k]
	}
	if is == nil || is.cur.deleted {
		return nil
	}
	return is
}

// orderField is the field ORDER BY field sorts by: id is an alias of the
// issue key except under KeysNumeric.
func (s *Server) orderField(field string) string {
	if field == "id" && s.opts.KeyComparison != KeysNumeric {
		return "key"
	}
	return field
}
