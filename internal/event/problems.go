package event

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Problem is one reason an event is invalid.
type Problem struct {
	// Path is the JSON pointer (RFC 6901) of the offending value, for
	// example /transition/comment/body. Empty means the whole document.
	Path string
	// Message says what is wrong, in plain words.
	Message string
}

// String renders the problem as "<path>: <message>" (just the message for
// a whole-document problem).
func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// MaxProblems bounds how many problems one ValidationError lists, so a
// hostile document cannot produce an unbounded report.
const MaxProblems = 100

// ValidationError lists the problems found in one event. Problems are
// sorted by path, then message, without duplicates; at most MaxProblems
// are kept and Omitted counts the rest.
type ValidationError struct {
	Problems []Problem
	Omitted  int
}

// Error renders all problems, one per line, sorted and deduplicated, then
// a count of omitted problems if any.
func (e *ValidationError) Error() string {
	ps := normalize(slices.Clone(e.Problems))
	lines := make([]string, len(ps), len(ps)+1)
	for i, p := range ps {
		lines[i] = p.String()
	}
	if e.Omitted > 0 {
		lines = append(lines, fmt.Sprintf("… and %d more problems", e.Omitted))
	}
	return strings.Join(lines, "\n")
}

// newValidationError is the error of problems ps, in path order.
func newValidationError(ps []Problem) *ValidationError {
	ps = normalize(ps)
	e := &ValidationError{Problems: ps}
	if len(ps) > MaxProblems {
		e.Problems, e.Omitted = ps[:MaxProblems:MaxProblems], len(ps)-MaxProblems
	}
	return e
}

func normalize(ps []Problem) []Problem {
	slices.SortFunc(ps, func(a, b Problem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(ps)
}

// Conditional holds the messages of a field that is required or forbidden
// depending on another field (a schema's if/then/else rules).
type Conditional struct{ Required, Forbidden string }

// Hints make a schema's problems read in plain words: Conditional and
// Pattern are keyed by the field's JSON pointer, in which "*" stands for
// any array index (/activity/*/label).
type Hints struct {
	Conditional map[string]Conditional
	Pattern     map[string]string
}

// cond returns the conditional messages of path.
func (h Hints) cond(path string) (Conditional, bool) {
	c, ok := h.Conditional[path]
	if !ok {
		c, ok = h.Conditional[anyIndex(path)]
	}
	return c, ok
}

// pattern returns the pattern help of path.
func (h Hints) pattern(path string) (string, bool) {
	p, ok := h.Pattern[path]
	if !ok {
		p, ok = h.Pattern[anyIndex(path)]
	}
	return p, ok
}

// anyIndex replaces every array index of a JSON pointer with "*".
func anyIndex(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if s != "" && strings.Trim(s, "0123456789") == "" {
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

// eventHints are NormalizedEvent's hints.
var eventHints = Hints{Conditional: conditional, Pattern: patternHelp}

// conditional holds the messages for fields that are required or forbidden
// depending on another field (the schema's if/then/else rules), keyed by
// the field's JSON pointer.
var conditional = map[string]Conditional{
	"/entity/key":                         {Required: "required when source.system is jira"},
	"/entity/linked_change_proposal":      {Forbidden: "not allowed when entity.kind is change_proposal"},
	"/transition/label":                   {"required when transition.kind is label_changed", "allowed only when transition.kind is label_changed"},
	"/transition/comment":                 {"required when transition.kind is comment_added", "allowed only when transition.kind is comment_added"},
	"/transition/review":                  {"required when transition.kind is review_submitted", "allowed only when transition.kind is review_submitted"},
	"/transition/comment/command":         {Required: "required when instruction is set"},
	"/transition/comment/original_length": {"required when truncated is true", "allowed only when truncated is true"},
	"/state/conversation":                 {"required when entity.kind is conversation", "allowed only when entity.kind is conversation"},
}

// patternHelp explains the schema's patterns in words, keyed by JSON pointer.
var patternHelp = map[string]string{
	"/repo":                           "must be one or more '/'-separated segments of letters, digits, '.', '_' or '-'",
	"/entity/key":                     "must be a Jira issue key such as PROJ-123",
	"/transition/comment/command":     "must start with '/' and contain no whitespace",
	"/state/change_proposal/head_sha": "must be 40 or 64 hexadecimal digits",
}

var printer = message.NewPrinter(language.English)

// schemaProblems flattens the schema library's nested error tree into its
// leaf causes, each with the JSON pointer of the instance it is about, in
// the words h gives.
func schemaProblems(verr *jsonschema.ValidationError, h Hints) []Problem {
	var out []Problem
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, h.leafProblems(pointer(e.InstanceLocation), e.ErrorKind)...)
	}
	walk(verr)
	return out
}

func (h Hints) leafProblems(path string, k jsonschema.ErrorKind) []Problem {
	one := func(msg string) []Problem { return []Problem{{Path: path, Message: msg}} }
	switch k := k.(type) {
	case *kind.AdditionalProperties:
		ps := make([]Problem, len(k.Properties))
		for i, name := range k.Properties {
			ps[i] = Problem{Path: path + "/" + escapeToken(name), Message: "unknown field"}
		}
		return ps
	case *kind.Required:
		ps := make([]Problem, len(k.Missing))
		for i, name := range k.Missing {
			p := path + "/" + escapeToken(name)
			msg := "required field is missing"
			if c, ok := h.cond(p); ok && c.Required != "" {
				msg = c.Required
			}
			ps[i] = Problem{Path: p, Message: msg}
		}
		return ps
	case *kind.DependentRequired:
		ps := make([]Problem, len(k.Missing))
		for i, name := range k.Missing {
			ps[i] = Problem{Path: path + "/" + escapeToken(name), Message: fmt.Sprintf("required when %s is set", k.Prop)}
		}
		return ps
	case *kind.FalseSchema:
		if c, ok := h.cond(path); ok && c.Forbidden != "" {
			return one(c.Forbidden)
		}
		return one("not allowed here")
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = article(w)
		}
		return one(fmt.Sprintf("must be %s, not %s", strings.Join(want, " or "), article(k.Got)))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprintf("%q", fmt.Sprint(w))
		}
		return one(fmt.Sprintf("must be one of %s (got %s)", strings.Join(want, ", "), show(k.Got)))
	case *kind.Format:
		if k.Want == "uri" {
			return one(fmt.Sprintf("must be an absolute URI (%v)", k.Err))
		}
		return one(fmt.Sprintf("must be a valid %s (%v)", k.Want, k.Err))
	case *kind.MinLength:
		if k.Want == 1 {
			return one("must not be empty")
		}
		return one(fmt.Sprintf("must be at least %d characters long (got %d)", k.Want, k.Got))
	case *kind.MaxLength:
		return one(fmt.Sprintf("must be at most %d characters long, counted in Unicode code points (got %d)", k.Want, k.Got))
	case *kind.Pattern:
		if help, ok := h.pattern(path); ok {
			return one(fmt.Sprintf("%s (got %s)", help, show(k.Got)))
		}
		return one(fmt.Sprintf("must match %s (got %s)", k.Want, show(k.Got)))
	case *kind.Minimum:
		return one(fmt.Sprintf("must be at least %s (got %s)", ratString(k.Want), ratString(k.Got)))
	case *kind.Maximum:
		return one(fmt.Sprintf("must be at most %s (got %s)", ratString(k.Want), ratString(k.Got)))
	case *kind.MaxItems:
		return one(fmt.Sprintf("must have at most %d items (got %d)", k.Want, k.Got))
	default:
		return one(k.LocalizedString(printer))
	}
}

// article prefixes a JSON type name with "a" or "an" ("null" stays bare).
func article(typ string) string {
	switch typ {
	case "null":
		return typ
	case "array", "object", "integer":
		return "an " + typ
	}
	return "a " + typ
}

// show renders a rejected value briefly: strings quoted and cut to 64 code
// points, anything else in its Go form.
func show(v any) string {
	if s, ok := v.(string); ok {
		if t := Truncate(s, 64); t != s {
			return fmt.Sprintf("%q…", t)
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(6)
}

// pointer joins reference tokens into a JSON pointer.
func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escapeToken(t))
	}
	return sb.String()
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
