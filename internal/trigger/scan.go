package trigger

import "strings"

// scanProblem is an unclosed string or an unbalanced bracket found by
// scanBalance, at a rune offset of the expression.
type scanProblem struct {
	off int
	msg string
}

var closerOf = map[rune]rune{'(': ')', '[': ']', '{': '}'}

// scanBalance looks for the two mistakes the CEL parser reports worst: a
// string literal that is never closed and a bracket without its partner.
// It knows just enough of the CEL lexer for that: string literals (quotes,
// triple quotes, raw and bytes prefixes, escapes) and // comments.
func scanBalance(expr string) *scanProblem {
	rs := []rune(expr)
	var stack []int // offsets of open brackets
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '/':
			if i+1 < len(rs) && rs[i+1] == '/' {
				for i < len(rs) && rs[i] != '\n' {
					i++
				}
			}
		case '"', '\'':
			end, ok := stringEnd(rs, i)
			if !ok {
				return &scanProblem{off: i, msg: "this string is never closed; end it with " + string(c)}
			}
			i = end
		case '(', '[', '{':
			stack = append(stack, i)
		case ')', ']', '}':
			if len(stack) == 0 {
				return &scanProblem{off: i, msg: "this '" + string(c) + "' has no opening '" + string(openerOf(c)) + "' before it"}
			}
			open := rs[stack[len(stack)-1]]
			if closerOf[open] != c {
				return &scanProblem{off: i, msg: "this '" + string(c) + "' does not match the open '" + string(open) +
					"'; close that one first with '" + string(closerOf[open]) + "'"}
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		at := stack[len(stack)-1]
		return &scanProblem{off: at, msg: "this '" + string(rs[at]) + "' is never closed; add a '" + string(closerOf[rs[at]]) + "'"}
	}
	return nil
}

func openerOf(c rune) rune {
	for o, cl := range closerOf {
		if cl == c {
			return o
		}
	}
	return c
}

// stringEnd returns the offset of the last rune of the string literal
// whose opening quote is at rs[i], and false when it is never closed.
func stringEnd(rs []rune, i int) (int, bool) {
	q := rs[i]
	raw := strings.ContainsAny(literalPrefix(rs, i), "rR")
	triple := i+2 < len(rs) && rs[i+1] == q && rs[i+2] == q
	j := i + 1
	if triple {
		j = i + 3
	}
	for ; j < len(rs); j++ {
		switch {
		case rs[j] == '\\' && !raw:
			j++
		case rs[j] == '\n' && !triple:
			return 0, false
		case rs[j] == q && !triple:
			return j, true
		case rs[j] == q && j+2 < len(rs) && rs[j+1] == q && rs[j+2] == q:
			return j + 2, true
		}
	}
	return 0, false
}

// literalPrefix returns the r/b prefix letters right before a quote
// ("" when the letters are the tail of a longer identifier).
func literalPrefix(rs []rune, i int) string {
	s := i
	for s > 0 && strings.ContainsRune("rRbB", rs[s-1]) && i-s < 2 {
		s--
	}
	if s > 0 && isIdentRune(rs[s-1]) {
		return ""
	}
	return string(rs[s:i])
}

func isIdentRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
