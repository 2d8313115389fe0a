package trigger

import (
	"errors"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
)

// FuzzCompile feeds arbitrary expression text to Compile: it must never
// panic, and must return either a usable Trigger, (nil, nil) for blank
// text, or a *CompileError with a 1-based position inside the text.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		``, `true`, `event.repo == "a/b"`, `event.entity.id`, `"bug" in event.state.labels`,
		`has(event.transition.comment) && event.transition.comment.command.startsWith("/fs-")`,
		"event.a ==\n  (", `event.transition.?comment.body.orValue("")=="x"`, `1/0 == 1`, "\x00\xff",
	} {
		f.Add(s)
	}
	inputs := []*Input{NewInput(commentEvent()), NewInput(labelEvent()), NewInput(prEvent())}
	f.Fuzz(func(t *testing.T, expr string) {
		tr, err := Compile(expr)
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile(%q): error %T is not *CompileError: %v", expr, err, err)
			}
			lines := strings.Count(expr, "\n") + 1
			for _, p := range ce.All() {
				if p.Line < 1 || p.Col < 1 || p.Line > lines || p.Msg == "" {
					t.Fatalf("Compile(%q): bad position %d:%d %q (text has %d lines)", expr, p.Line, p.Col, p.Msg, lines)
				}
			}
			return
		}
		if tr == nil {
			if strings.TrimSpace(expr) != "" {
				t.Fatalf("Compile(%q) = nil, nil for non-blank text", expr)
			}
			return
		}
		for _, in := range inputs {
			_, _ = tr.Eval(in) // must not panic; errors are allowed
		}
	})
}

// FuzzCompileEntity is FuzzCompile for entity triggers: CompileEntity
// never panics, returns a *CompileError with positions inside the text,
// and a trigger it accepts evaluates (with and without an event) without
// panicking.
func FuzzCompileEntity(f *testing.F) {
	for _, s := range []string{
		``, `true`, `entity.kind == "work_item"`, `event != null && event.repo == "a"`, `event.repo == "a"`,
		`entity.activity.exists(a, a.command == "/fs-triage" && a.actor.role == "write")`,
		`event == null ? entity.state.labels.size() > 0 : event.transition.kind == "opened"`,
		`[event][0].repo == "a"`, `entity.activity.exists(event, event.kind == "label")`, "entity.a ==\n  (",
	} {
		f.Add(s)
	}
	en := &entity.Entity{Kind: entity.KindWorkItem, State: entity.State{Labels: []string{"x"}}, Activity: []entity.Element{{Kind: "comment"}}}
	inputs := []*Input{NewEntityInput(en, nil), NewEntityInput(en, commentEvent())}
	f.Fuzz(func(t *testing.T, expr string) {
		tr, err := CompileEntity(expr, Limits{})
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("CompileEntity(%q): error %T is not *CompileError: %v", expr, err, err)
			}
			lines := strings.Count(expr, "\n") + 1
			for _, p := range ce.All() {
				if p.Line < 1 || p.Col < 1 || p.Line > lines || p.Msg == "" {
					t.Fatalf("CompileEntity(%q): bad position %d:%d %q (text has %d lines)", expr, p.Line, p.Col, p.Msg, lines)
				}
			}
			return
		}
		if tr == nil {
			if strings.TrimSpace(expr) != "" {
				t.Fatalf("CompileEntity(%q) = nil, nil for non-blank text", expr)
			}
			return
		}
		for _, in := range inputs {
			_, _ = tr.Eval(in)
		}
	})
}
