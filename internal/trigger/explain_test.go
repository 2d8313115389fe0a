package trigger

import (
	"errors"
	"strings"
	"testing"
)

// TestExplainedErrors: the common mistakes get one plain sentence, the
// expression line and a caret under the column (the position the harness
// loader maps into the file).
func TestExplainedErrors(t *testing.T) {
	cases := []struct {
		name, expr string
		line, col  int
		msg        string
	}{
		{"unclosed parenthesis", `(event.repo == "a"`, 1, 1, "this '(' is never closed; add a ')'"},
		{"extra parenthesis", `event.repo == "a")`, 1, 18, "this ')' has no opening '(' before it"},
		{"unclosed bracket", `event.transition.kind in ["opened", "edited"`, 1, 26, "this '[' is never closed; add a ']'"},
		{"mismatched bracket", `event.transition.kind in ["opened")`, 1, 35, "this ')' does not match the open '['; close that one first with ']'"},
		{"unclosed string", `event.repo == "acme/platform`, 1, 15, `this string is never closed; end it with "`},
		{"unclosed single-quoted string", "event.repo == 'a &&\n  true", 1, 15, "this string is never closed; end it with '"},
		{"assignment", `event.repo = "a"`, 1, 12, "a single '=' is not an operator in CEL; compare with '=='"},
		{"triple equals", `event.repo === "a"`, 1, 12, "'===' is not a CEL operator; compare with '=='"},
		{"trailing and", "event.repo == \"a\" &&\n", 1, 19, "the expression ends with '&&', which needs a condition after it"},
		{"trailing or", `event.repo == "a" ||`, 1, 19, "the expression ends with '||', which needs a condition after it"},
		{"trailing comparison", `event.repo ==`, 1, 12, "the expression ends with '==', which needs a value after it"},
		{"word and", `event.repo == "a" and event.entity.id == 1`, 1, 19, `"and" is not a CEL operator; write '&&' instead`},
		{"word or", "event.repo == \"a\"\n  or event.entity.id == 1", 2, 3, `"or" is not a CEL operator; write '||' instead`},
		{"word not", `not event.actor.is_entity_author`, 1, 1, `"not" is not a CEL operator; write '!' before the condition instead`},
		{"single ampersand", `event.repo == "a" & event.entity.id == 1`, 1, 19, `a single '&' is not an operator in CEL; write '&&' for "and"`},
		{"doubled operator", `event.repo == "a" && && true`, 1, 22, "unexpected '&&' here; a value or a condition is expected"},
		{"missing operator", `event.repo == "a" true`, 1, 19, "unexpected 'true': the expression before it is complete; is an operator such as '&&' missing?"},
		{"unknown field", "event.transition.kind == \"comment_added\" &&\n  event.transition.coment.command == \"/x\"", 2, 20, "event.transition has no field 'coment'; did you mean 'comment'?"},
		{"unknown field, no close name", `event.state.change_proposal.head == "x"`, 1, 29,
			"event.state.change_proposal has no field 'head'; its fields are author_id, base_ref, base_repo, head_ref, head_repo, head_sha, id, is_fork"},
		{"unknown method", `event.repo.startswith("acme/")`, 1, 12, "there is no function 'startswith'; did you mean 'startsWith'?"},
		{"unknown function", `lower(event.repo) == "a"`, 1, 1, "there is no function 'lower'; did you mean 'lowerAscii'?"},
		{"unknown variable", `evnt.repo == "a"`, 1, 1, "unknown name 'evnt'; a trigger reads everything through the variable 'event'; did you mean 'event'?"},
		{"type mismatch", `event.entity.id == "7"`, 1, 17, "'==' cannot be applied to int and string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.expr)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile(%q) = %v; want a *CompileError", tc.expr, err)
			}
			lines := strings.Split(tc.expr, "\n")
			caret := "\n  | " + lines[tc.line-1] + "\n  | " + strings.Repeat(" ", tc.col-1) + "^"
			if ce.Line != tc.line || ce.Col != tc.col || ce.Msg != tc.msg+caret || len(ce.More) != 0 {
				t.Errorf("got %d:%d %q (+%d more)\nwant %d:%d %q", ce.Line, ce.Col, ce.Msg, len(ce.More), tc.line, tc.col, tc.msg+caret)
			}
		})
	}
}

// A result that is not a condition is a whole-expression problem: one
// sentence, no caret.
func TestNotBoolMessage(t *testing.T) {
	_, err := Compile(`event.state.labels`)
	want := "1:1: a trigger must be a condition (true or false), but this expression has type list(string); compare it with something, for example with =="
	if err == nil || err.Error() != want {
		t.Errorf("Compile = %v\nwant %s", err, want)
	}
}

func TestScanBalanceKnowsLiterals(t *testing.T) {
	for _, expr := range []string{
		`r"a\" == event.repo`, `"""a "quoted" (word""" == event.repo`, `'it\'s (' == event.repo`,
		"event.repo == \"a\" // a comment with ( and \"\n", `b'x)' == b'x)'`, `event.repo.matches("[(]")`,
	} {
		if p := scanBalance(expr); p != nil {
			t.Errorf("scanBalance(%q) = %+v; want no problem", expr, p)
		}
	}
}
