package trigger

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"cel.dev/cel-go/common/types"

	"github.com/fullsend-dev/fullsend/internal/textdist"
)

var (
	undefinedField = regexp.MustCompile(`^undefined field '(.*)'$`)
	undeclaredRef  = regexp.MustCompile(`^undeclared reference to '([^']*)'(?: \(in container '[^']*'\))?(?: \(did you mean '([^']*)'\?\))?$`)
	noOverload     = regexp.MustCompile(`^found no matching overload for '([^']*)' applied to '\((.*)\)'$`)
)

// explainCheck translates one type-checker message about the expression
// at rune offset off, returning the sentence and the offset to point at.
func explainCheck(rs []rune, off int, msg string) (string, int) {
	if m := undefinedField.FindStringSubmatch(msg); m != nil {
		return explainField(rs, off, m[1])
	}
	if m := undeclaredRef.FindStringSubmatch(msg); m != nil {
		return explainName(rs, off, m[1], m[2])
	}
	if m := noOverload.FindStringSubmatch(msg); m != nil {
		args := strings.Split(m[2], ", ")
		what := strings.Join(args, " and ")
		if op, ok := operatorNames[m[1]]; ok {
			return fmt.Sprintf("'%s' cannot be applied to %s", op, what), off
		}
		return fmt.Sprintf("%s() cannot be applied to %s", m[1], what), off
	}
	return msg, off
}

// operatorNames maps CEL's internal operator function names to the
// operators as written.
var operatorNames = map[string]string{
	"_==_": "==", "_!=_": "!=", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">=",
	"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%", "_&&_": "&&", "_||_": "||",
	"!_": "!", "-_": "-", "_[_]": "[]", "@in": "in", "_?_:_": "?:",
}

// explainField explains a misspelled field. off points at the '.' before
// it; the object is the dotted path written before that dot.
func explainField(rs []rune, off int, field string) (string, int) {
	at := off
	if off < len(rs) && rs[off] == '.' {
		at = off + 1
	}
	s := off
	for s > 0 && (isIdentRune(rs[s-1]) || rs[s-1] == '.') {
		s--
	}
	object := string(rs[s:min(off, len(rs))])
	names := fieldsOf(object)
	if object == "" || names == nil {
		return fmt.Sprintf("there is no field '%s' here", field), at
	}
	msg := fmt.Sprintf("%s has no field '%s'", object, field)
	if near := closest(field, names); near != "" {
		return msg + fmt.Sprintf("; did you mean '%s'?", near), at
	}
	return msg + "; its fields are " + strings.Join(names, ", "), at
}

// fieldsOf returns the sorted field names of the object the expression
// object denotes, or nil when it is not an event or entity object.
func fieldsOf(object string) []string {
	env, err := Env()
	if object == "entity" || strings.HasPrefix(object, "entity.") {
		env, err = EntityEnv()
	}
	if err != nil || object == "" {
		return nil
	}
	ast, iss := env.Compile(object)
	if iss != nil && iss.Err() != nil {
		return nil
	}
	t := ast.OutputType()
	if t.Kind() != types.StructKind {
		return nil
	}
	names, ok := env.CELTypeProvider().FindStructFieldNames(t.TypeName())
	if !ok {
		return nil
	}
	names = slices.Clone(names)
	slices.Sort(names)
	return names
}

// explainName explains an unknown variable or function; suggest is the
// checker's own suggestion, if any. off points at the name or, for a
// call, at the '(' after it.
func explainName(rs []rune, off int, name, suggest string) (string, int) {
	n := len([]rune(name))
	start, call := off, false
	if off >= n && string(rs[off-n:off]) == name && off < len(rs) && rs[off] == '(' {
		start, call = off-n, true
	}
	var msg string
	if call {
		msg = fmt.Sprintf("there is no function '%s'", name)
	} else {
		msg = fmt.Sprintf("unknown name '%s'; a trigger reads everything through the variable 'event'", name)
		if suggest == "" && closest(name, []string{"event"}) != "" {
			suggest = "event"
		}
	}
	if suggest != "" {
		msg += fmt.Sprintf("; did you mean '%s'?", suggest)
	}
	return msg, start
}

// closest returns the candidate nearest to word if it is a plausible
// misspelling (an edit distance of at most 2, or a case difference).
func closest(word string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := textdist.Levenshtein(strings.ToLower(word), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
