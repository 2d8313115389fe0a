package jirasim

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

var fieldAliases = map[string]string{"issuekey": "key", "updateddate": "updated", "createddate": "created", "category": "statuscategory"}

func canonicalField(f string) string {
	f = strings.ToLower(f)
	if a, ok := fieldAliases[f]; ok {
		return a
	}
	return f
}

// fieldOps lists the supported fields and their operators.
var fieldOps = map[string][]string{
	"project":        {"=", "!=", "in", "not in"},
	"status":         {"=", "!=", "in", "not in"},
	"statuscategory": {"=", "!=", "in", "not in"},
	"key":            {"=", "!=", ">", ">=", "<", "<=", "in", "not in"},
	"id":             {"=", "!=", ">", ">=", "<", "<=", "in", "not in"},
	"labels":         {"=", "!=", "in", "not in", "is", "is not"},
	"updated":        {"=", "!=", ">", ">=", "<", "<="},
	"created":        {"=", "!=", ">", ">=", "<", "<="},
}

var orderable = map[string]bool{"created": true, "updated": true, "key": true, "id": true, "status": true, "project": true, "summary": true}

func (p *parser) parseClause() (node, error) {
	ft := p.next()
	if ft.kind != tkWord && ft.kind != tkString {
		return nil, unexpected(ft, "a field name")
	}
	c := &clause{field: canonicalField(ft.text), name: ft.text, pos: ft.pos}
	ops, known := fieldOps[c.field]
	if !known {
		return nil, jqlErrf("Field '%s' does not exist or you do not have permission to view it. (The Jira emulator supports: project, status, statusCategory, labels, key, id, created, updated.)", ft.text)
	}
	t := p.next()
	switch {
	case t.kind == tkOp:
		c.op = t.text
	case t.kind == tkWord && strings.EqualFold(t.text, "in"):
		c.op = "in"
	case t.kind == tkWord && strings.EqualFold(t.text, "is"):
		c.op = "is"
		if p.isWord("not") {
			p.next()
			c.op = "is not"
		}
	case t.kind == tkWord && strings.EqualFold(t.text, "not"):
		if !p.isWord("in") {
			return nil, unexpected(p.peek(), "'in'")
		}
		p.next()
		c.op = "not in"
	default:
		return nil, unexpected(t, "operator")
	}
	if !slices.Contains(ops, c.op) {
		return nil, jqlErrf("The operator '%s' is not supported by the '%s' field.", c.op, ft.text)
	}
	switch c.op {
	case "in", "not in":
		if t := p.next(); t.kind != tkLParen {
			return nil, unexpected(t, "'('")
		}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			c.values = append(c.values, v)
			t := p.next()
			if t.kind == tkRParen {
				break
			}
			if t.kind != tkComma {
				return nil, unexpected(t, "',' or ')'")
			}
		}
	case "is", "is not":
		t := p.next()
		if t.kind != tkWord || !(strings.EqualFold(t.text, "empty") || strings.EqualFold(t.text, "null")) {
			return nil, unexpected(t, "EMPTY")
		}
	default:
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		c.values = []token{v}
	}
	return c, nil
}

func (p *parser) value() (token, error) {
	t := p.next()
	if t.kind != tkWord && t.kind != tkString {
		return t, unexpected(t, "a value")
	}
	if t.kind == tkWord && p.peek().kind == tkLParen {
		return t, jqlErrf("Unable to find JQL function '%s()'. (The Jira emulator supports no JQL functions.)", t.text)
	}
	return t, nil
}

// pred decides whether an issue in a given state matches.
type pred func(is *issue, st issueState) bool

// compile resolves values against the world (s.mu held) and builds a
// predicate; unknown projects, statuses, keys or dates are 400s as in Jira.
func (s *Server) compile(n node, now time.Time) (pred, error) {
	switch n := n.(type) {
	case andNode:
		a, b, err := s.compilePair(n.a, n.b, now)
		if err != nil {
			return nil, err
		}
		return func(is *issue, st issueState) bool { return a(is, st) && b(is, st) }, nil
	case orNode:
		a, b, err := s.compilePair(n.a, n.b, now)
		if err != nil {
			return nil, err
		}
		return func(is *issue, st issueState) bool { return a(is, st) || b(is, st) }, nil
	case notNode:
		x, err := s.compile(n.x, now)
		if err != nil {
			return nil, err
		}
		return func(is *issue, st issueState) bool { return !x(is, st) }, nil
	case *clause:
		return s.compileClause(n, now)
	}
	return nil, jqlErrf("Error in the JQL Query: unsupported expression.")
}

// compilePair compiles the two operands of an and or an or.
func (s *Server) compilePair(x, y node, now time.Time) (pred, pred, error) {
	a, err := s.compile(x, now)
	if err != nil {
		return nil, nil, err
	}
	b, err := s.compile(y, now)
	return a, b, err
}

func (s *Server) compileClause(c *clause, now time.Time) (pred, error) {
	if isKeyComparison(c) {
		return s.compileKeyComparison(c)
	}
	negate := c.op == "!=" || c.op == "not in" || c.op == "is not"
	switch c.field {
	case "updated", "created":
		at, err := s.parseDate(c.field, c.values[0], now)
		if err != nil {
			return nil, err
		}
		get := func(is *issue, st issueState) time.Time { return st.updated }
		if c.field == "created" {
			get = func(is *issue, _ issueState) time.Time { return is.created }
		}
		return func(is *issue, st issueState) bool { return compareTime(get(is, st), c.op, at) }, nil
	case "id":
		return s.compileID(c)
	case "labels":
		if c.op == "is" || c.op == "is not" {
			return func(_ *issue, st issueState) bool { return (len(st.labels) == 0) != negate }, nil
		}
		want := tokenTexts(c.values)
		// Like Jira, != and not in never match issues without labels.
		return func(_ *issue, st issueState) bool {
			if len(st.labels) == 0 {
				return false
			}
			hit := slices.ContainsFunc(st.labels, func(l string) bool {
				return slices.ContainsFunc(want, func(w string) bool { return strings.EqualFold(w, l) })
			})
			return hit != negate
		}, nil
	}
	set := map[string]bool{}
	for _, v := range c.values {
		id, err := s.resolve(c.field, v.text)
		if err != nil {
			return nil, err
		}
		set[id] = true
	}
	get := map[string]func(*issue, issueState) string{
		"project":        func(is *issue, _ issueState) string { return is.project.key },
		"status":         func(_ *issue, st issueState) string { return st.status.id },
		"statuscategory": func(_ *issue, st issueState) string { return st.status.category },
		"key":            func(is *issue, _ issueState) string { return is.key },
	}[c.field]
	return func(is *issue, st issueState) bool { return set[get(is, st)] != negate }, nil
}

// compileID matches issue ids (=, !=, in, not in; comparisons are
// compileKeyComparison's): any number, existing or not; a value may also
// be an issue key, standing for its id.
func (s *Server) compileID(c *clause) (pred, error) {
	ids := make([]int64, len(c.values))
	for i, v := range c.values {
		n, err := strconv.ParseInt(v.text, 10, 64)
		if err != nil {
			k := strings.ToUpper(v.text)
			is, ok := s.issues[k]
			if !validIssueKey(k) || !ok || is.cur.deleted {
				return nil, jqlErrf("The value '%s' does not exist for the field 'id'.", v.text)
			}
			n = is.id
		}
		ids[i] = n
	}
	negate := c.op == "not in" || c.op == "!="
	return func(is *issue, _ issueState) bool { return slices.Contains(ids, is.id) != negate }, nil
}

func compareInt(a int64, op string, b int64) bool {
	switch op {
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "<":
		return a < b
	case "<=":
		return a <= b
	}
	return false
}

func tokenTexts(ts []token) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.text
	}
	return out
}

// resolve maps a value to the canonical id compared by compileClause.
func (s *Server) resolve(field, v string) (string, error) {
	switch field {
	case "project":
		for _, p := range s.projects {
			if strings.EqualFold(p.key, v) || strings.EqualFold(p.name, v) || strconv.FormatInt(p.id, 10) == v {
				return p.key, nil
			}
		}
		return "", jqlErrf("The value '%s' does not exist for the field 'project'.", v)
	case "status":
		if st := s.status(v); st != nil {
			return st.id, nil
		}
		return "", jqlErrf("The value '%s' does not exist for the field 'status'.", v)
	case "statuscategory":
		for key, c := range categories {
			if strings.EqualFold(v, key) || strings.EqualFold(v, c.name) || v == itoa(c.id) {
				return key, nil
			}
		}
		return "", jqlErrf("The value '%s' does not exist for the field 'statusCategory'.", v)
	case "key":
		k := strings.ToUpper(v)
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			if is, ok := s.byID[n]; ok {
				return is.key, nil
			}
		}
		if !validIssueKey(k) {
			return "", jqlErrf("The issue key '%s' for field 'key' is invalid.", v)
		}
		if is, ok := s.issues[k]; ok && !is.cur.deleted {
			return k, nil
		}
		return "", jqlErrf("An issue with key '%s' does not exist for field 'key'.", v)
	}
	return "", jqlErrf("Field '%s' does not exist or you do not have permission to view it.", field)
}

var relDateRe = regexp.MustCompile(`^([-+]?)((?:\d+[wdhm]\s*)+)$`)
var relPartRe = regexp.MustCompile(`(\d+)([wdhm])`)

var dateLayouts = []string{"2006/01/02 15:04", "2006-01-02 15:04", "2006/01/02", "2006-01-02"}

// parseDate reads epoch milliseconds, a quoted date in the user's time
// zone, or a relative period such as -5m, -1d or "-4w 2d".
func (s *Server) parseDate(field string, v token, now time.Time) (time.Time, error) {
	text := strings.TrimSpace(v.text)
	if ms, err := strconv.ParseInt(text, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	if m := relDateRe.FindStringSubmatch(text); m != nil {
		var d time.Duration
		for _, part := range relPartRe.FindAllStringSubmatch(m[2], -1) {
			n, _ := strconv.ParseInt(part[1], 10, 64)
			unit := map[string]time.Duration{"w": 7 * 24 * time.Hour, "d": 24 * time.Hour, "h": time.Hour, "m": time.Minute}[part[2]]
			d += time.Duration(n) * unit
		}
		if m[1] == "-" {
			d = -d
		}
		return now.Add(d), nil
	}
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l, text, s.opts.UserTimeZone); err == nil {
			return t, nil
		}
	}
	return time.Time{}, jqlErrf("Date value '%s' for field '%s' is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.", v.text, field)
}

func compareTime(a time.Time, op string, b time.Time) bool {
	switch op {
	case "=":
		return a.Equal(b)
	case "!=":
		return !a.Equal(b)
	case ">":
		return a.After(b)
	case ">=":
		return !a.Before(b)
	case "<":
		return a.Before(b)
	case "<=":
		return !a.After(b)
	}
	return false
}
