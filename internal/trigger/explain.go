package trigger

import (
	"fmt"
	"regexp"
	"strings"

	"cel.dev/cel-go/cel"
)

// fromIssues turns the errors of env.Compile into one CompileError whose
// messages are plain sentences followed by the expression line and a
// caret under the column. A syntax error is reported once (the parser's
// later errors are mostly echoes of the first); type-check errors are all
// reported.
func fromIssues(expr string, iss *cel.Issues) *CompileError {
	rs := []rune(expr)
	var out *CompileError
	for i, e := range iss.Errors() {
		off := offsetOf(expr, e.Location.Line(), e.Location.Column()+1)
		var msg string
		if syn, ok := strings.CutPrefix(e.Message, "Syntax error: "); ok {
			if i > 0 {
				break
			}
			if p := scanBalance(expr); p != nil {
				msg, off = p.msg, p.off
			} else {
				msg, off = explainSyntax(rs, off, syn)
			}
		} else {
			msg, off = explainCheck(rs, off, e.Message)
		}
		ce := withCaret(expr, off, msg)
		if out == nil {
			out = &ce
			continue
		}
		out.More = append(out.More, ce)
	}
	if out == nil {
		out = &CompileError{Line: 1, Col: 1, Msg: iss.String()}
	}
	return out
}

var inputErr = regexp.MustCompile(`^(?:mismatched|extraneous) input '(.*)' expecting (.*)$`)

// explainSyntax translates one parser message about the token at rune
// offset off, returning the sentence and the offset to point at.
func explainSyntax(rs []rune, off int, msg string) (string, int) {
	if tok, ok := strings.CutPrefix(msg, "token recognition error at: '"); ok {
		return explainBadChar(rs, off, strings.TrimSuffix(tok, "'"))
	}
	m := inputErr.FindStringSubmatch(msg)
	if m == nil {
		before, _, _ := strings.Cut(msg, " expecting ")
		return before, off
	}
	tok, expecting := m[1], m[2]
	if w, ok := wordOperators[tok]; ok {
		return fmt.Sprintf("%q is not a CEL operator; write '%s' instead", tok, w), off
	}
	if start, ok := wordBefore(rs, off, "not"); ok {
		return `"not" is not a CEL operator; write '!' before the condition instead`, start
	}
	switch {
	case tok == "<EOF>":
		return explainEnd(rs, off)
	case expecting == "<EOF>":
		return fmt.Sprintf("unexpected '%s': the expression before it is complete; is an operator such as '&&' missing?", tok), off
	}
	return fmt.Sprintf("unexpected '%s' here; a value or a condition is expected", tok), off
}

// wordOperators are the English words people write for CEL's operators.
var wordOperators = map[string]string{"and": "&&", "or": "||", "not": "!"}

// explainBadChar explains a character the lexer does not accept.
func explainBadChar(rs []rune, off int, tok string) (string, int) {
	r := []rune(tok)
	if len(r) == 0 {
		return "this character cannot appear here", off
	}
	switch c := string(r[0]); c {
	case "=":
		if off >= 2 && rs[off-1] == '=' && rs[off-2] == '=' {
			return "'===' is not a CEL operator; compare with '=='", off - 2
		}
		return "a single '=' is not an operator in CEL; compare with '=='", off
	case "&":
		return `a single '&' is not an operator in CEL; write '&&' for "and"`, off
	case "|":
		return `a single '|' is not an operator in CEL; write '||' for "or"`, off
	}
	return fmt.Sprintf("the character %q cannot appear here", r[0]), off
}

// trailingOps are the operators an expression can wrongly end with,
// longest first.
var trailingOps = []string{"&&", "||", "==", "!=", "<=", ">=", "in", "<", ">", "+", "-", "*", "/", "%", "!", ".", ",", "?", ":"}

// explainEnd explains an expression that stops before it is complete.
func explainEnd(rs []rune, off int) (string, int) {
	end := len(rs)
	for end > 0 && strings.ContainsRune(" \t\r\n", rs[end-1]) {
		end--
	}
	text := string(rs[:end])
	for _, op := range trailingOps {
		if !strings.HasSuffix(text, op) || op == "in" && end > 2 && isIdentRune(rs[end-3]) {
			continue
		}
		needs := "a value"
		if op == "&&" || op == "||" {
			needs = "a condition"
		}
		return fmt.Sprintf("the expression ends with '%s', which needs %s after it", op, needs), end - len([]rune(op))
	}
	return "the expression ends too early; something is missing at the end", off
}

// wordBefore reports whether the identifier right before offset off
// (skipping spaces) is word, and where it starts.
func wordBefore(rs []rune, off int, word string) (int, bool) {
	e := min(off, len(rs))
	for e > 0 && strings.ContainsRune(" \t\r\n", rs[e-1]) {
		e--
	}
	s := e
	for s > 0 && isIdentRune(rs[s-1]) {
		s--
	}
	return s, string(rs[s:e]) == word
}

// offsetOf converts a 1-based line:col (col in code points) of expr into a
// rune offset, clamped to the text.
func offsetOf(expr string, line, col int) int {
	return min(valueOffset(expr, max(line, 1), col), len([]rune(expr)))
}

// valueOffset converts a 1-based line:col into a rune offset.
func valueOffset(expr string, line, col int) int {
	off := 0
	for i, l := range strings.Split(expr, "\n") {
		if i == line-1 {
			return off + min(max(col-1, 0), len([]rune(l)))
		}
		off += len([]rune(l)) + 1
	}
	return off
}

// withCaret builds the CompileError for msg at rune offset off: its
// position, and the message followed by the expression line with a caret
// under the column.
func withCaret(expr string, off int, msg string) CompileError {
	lines := strings.Split(expr, "\n")
	line, col := 1, 1
	n := 0
	for i, l := range lines {
		w := len([]rune(l))
		if off <= n+w || i == len(lines)-1 {
			line, col = i+1, min(off-n, w)+1
			break
		}
		n += w + 1
	}
	text := []rune(strings.TrimRight(lines[line-1], "\r"))
	var pad strings.Builder
	for _, r := range text[:min(col-1, len(text))] {
		if r == '\t' {
			pad.WriteRune('\t')
		} else {
			pad.WriteRune(' ')
		}
	}
	return CompileError{Line: line, Col: col,
		Msg: fmt.Sprintf("%s\n  | %s\n  | %s^", msg, string(text), pad.String())}
}
