package event

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A comment cut to its limit says so: truncated and the original length.
func TestCommentOfMarksTruncation(t *testing.T) {
	long := "/fs-triage " + strings.Repeat("x", 100*1024)
	cases := []struct {
		name      string
		text      string
		truncated bool
		origLen   int
		bodyLen   int
	}{
		{"short", "/fs-triage check it", false, 0, 19},
		{"exactly the limit", strings.Repeat("é", MaxCommentBody), false, 0, MaxCommentBody},
		{"100 KB", long, true, utf8.RuneCountInString(long), MaxCommentBody},
		{"multi-byte over the limit", strings.Repeat("日", MaxCommentBody+5), true, MaxCommentBody + 5, MaxCommentBody},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := CommentOf(tc.text)
			if c.Truncated != tc.truncated || c.OriginalLength != tc.origLen {
				t.Errorf("truncated %v original_length %d, want %v %d", c.Truncated, c.OriginalLength, tc.truncated, tc.origLen)
			}
			if n := utf8.RuneCountInString(c.Body); n != tc.bodyLen {
				t.Errorf("body has %d code points, want %d", n, tc.bodyLen)
			}
			ev, err := Decode([]byte(exampleJSON))
			if err != nil {
				t.Fatal(err)
			}
			ev.Transition.Comment = c
			if err := ev.Validate(); err != nil {
				t.Errorf("event invalid: %v", err)
			}
		})
	}
}

// Shorten keeps the command, cuts body and instruction, and remembers the
// length before the first cut.
func TestShortenKeepsFirstOriginalLength(t *testing.T) {
	c := CommentOf("/fs-triage " + strings.Repeat("\x01", 4000))
	if c.Truncated || c.Command != "/fs-triage" || utf8.RuneCountInString(c.Instruction) != 4000 {
		t.Fatalf("unexpected comment: truncated %v command %q", c.Truncated, c.Command)
	}
	c.Shorten(100)
	if !c.Truncated || c.OriginalLength != 4011 || utf8.RuneCountInString(c.Body) != 100 ||
		utf8.RuneCountInString(c.Instruction) != 100 || c.Command != "/fs-triage" {
		t.Fatalf("after Shorten(100): %+v", *c)
	}
	c.Shorten(50)
	if c.OriginalLength != 4011 || utf8.RuneCountInString(c.Body) != 50 {
		t.Fatalf("a second cut changed original_length to %d", c.OriginalLength)
	}
	before := *c
	c.Shorten(1000) // nothing to cut
	if *c != before {
		t.Fatalf("Shorten without a cut changed the comment")
	}
}

func TestTruncatedFieldsSchema(t *testing.T) {
	cases := []struct {
		name    string
		fields  map[string]any
		badPath string // "" means valid
	}{
		{"truncated with length", map[string]any{"truncated": true, "original_length": 5000}, ""},
		{"not truncated", map[string]any{"truncated": false}, ""},
		{"truncated without length", map[string]any{"truncated": true}, "/transition/comment/original_length"},
		{"length without truncated", map[string]any{"original_length": 5000}, "/transition/comment/original_length"},
		{"length not a number", map[string]any{"truncated": true, "original_length": "long"}, "/transition/comment/original_length"},
		{"truncated not a bool", map[string]any{"truncated": "yes", "original_length": 5}, "/transition/comment/truncated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, exampleJSON)
			for k, v := range tc.fields {
				set(t, doc, "/transition/comment/"+k, v)
			}
			_, err := Decode(marshal(t, doc))
			if tc.badPath == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if ps := problemsOf(t, err); !hasPath(ps, tc.badPath) {
				t.Errorf("problems %v, want one at %s", ps, tc.badPath)
			}
		})
	}
}
