package event

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"", 3, ""},
		{"héllo", 2, "hé"},
		{"😀😀😀", 2, "😀😀"},
		{"😀😀😀", 3, "😀😀😀"},
		{"a\xffb", 2, "a\xff"},
		{"日本語テキスト", 4, "日本語テ"},
	}
	for _, tc := range tests {
		if got := Truncate(tc.in, tc.max); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name, body, command, instruction string
	}{
		{"design example", "/fs-triage check acceptance criteria", "/fs-triage", "check acceptance criteria"},
		{"command only", "/fs-retry", "/fs-retry", ""},
		{"leading spaces", "   /fs-fix  the   tests  ", "/fs-fix", "the   tests"},
		{"only first line", "/fs-code add docs\nplease also\n/fs-other", "/fs-code", "add docs"},
		{"windows line end", "/fs-code add docs\r\nmore", "/fs-code", "add docs"},
		{"tab separator", "/fs-code\tnow", "/fs-code", "now"},
		{"no slash", "please /fs-triage", "", ""},
		{"command on second line", "hello\n/fs-triage", "", ""},
		{"empty", "", "", ""},
		{"slash alone", "/ do it", "/", "do it"},
		{"unicode space separator", "/fs-go\u00a0now", "/fs-go", "now"},
		{"long command truncated", "/" + strings.Repeat("c", 100) + " x", "/" + strings.Repeat("c", 63), "x"},
		{"long instruction truncated", "/c " + strings.Repeat("é", 5000), "/c", strings.Repeat("é", 4096)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, i := ParseCommand(tc.body)
			if c != tc.command || i != tc.instruction {
				t.Fatalf("ParseCommand(%q) = %q, %q; want %q, %q", tc.body, c, i, tc.command, tc.instruction)
			}
			if utf8.RuneCountInString(c) > MaxCommand || utf8.RuneCountInString(i) > MaxInstruction {
				t.Fatalf("result over limits")
			}
		})
	}
}

// TestParseCommandValidates checks that whatever ParseCommand extracts
// passes the schema's rules for command and instruction.
func TestParseCommandValidates(t *testing.T) {
	bodies := []string{"/fs-triage check", "/x\u2003y z", "/" + strings.Repeat("ü", 80) + " " + strings.Repeat("z", 5000), "no command"}
	for _, body := range bodies {
		c, i := ParseCommand(body)
		ev, err := Decode([]byte(exampleJSON))
		if err != nil {
			t.Fatal(err)
		}
		ev.Transition.Comment = &Comment{Body: Truncate(body, MaxCommentBody), Command: c, Instruction: i}
		if err := ev.Validate(); err != nil {
			t.Errorf("body %.20q: %v", body, err)
		}
	}
}
