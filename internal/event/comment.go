package event

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Length limits of comment fields, in Unicode code points (docs/events.md).
const (
	MaxCommentBody = 4096
	MaxCommand     = 64
	MaxInstruction = 4096
)

// Length limits of other string fields and of the label list, as the
// embedded schema states them (docs/events.md); input drivers cut outside
// text to them.
const (
	MaxLabel     = 255  // one label name
	MaxLabels    = 1000 // labels in state.labels
	MaxID        = 256  // actor and author ids
	MaxRepoField = 512  // head_repo, base_repo
	MaxRefField  = 1024 // head_ref, base_ref
)

// StateLabels returns names as state.labels: each cut to MaxLabel code
// points, empty ones dropped, at most MaxLabels, in order; truncated
// reports whether anything was cut or dropped (State.LabelsTruncated).
// The result is never nil.
func StateLabels(names []string) (labels []string, truncated bool) {
	labels = make([]string, 0, min(len(names), MaxLabels))
	for _, n := range names {
		t := Truncate(n, MaxLabel)
		switch {
		case t == "":
			continue
		case len(labels) == MaxLabels:
			truncated = true
			continue
		}
		truncated = truncated || t != n
		labels = append(labels, t)
	}
	return labels, truncated
}

// Truncate returns the longest prefix of s holding at most maxCodePoints
// code points; it never splits a multi-byte character. Each byte of an
// invalid UTF-8 sequence counts as one code point, as it becomes one U+FFFD
// when the event is encoded as JSON. maxCodePoints <= 0 yields "".
func Truncate(s string, maxCodePoints int) string {
	if maxCodePoints <= 0 {
		return ""
	}
	if len(s) <= maxCodePoints {
		return s // at most one code point per byte
	}
	n := 0
	for i := 0; i < len(s); {
		if n == maxCodePoints {
			return s[:i]
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return s
}

// ParseCommand reads a slash command from a comment body. The command is
// the first whitespace-separated token of the first line when that token
// starts with "/"; the instruction is the rest of that line, trimmed.
// Without a command both results are empty. Results are truncated to
// MaxCommand and MaxInstruction code points.
func ParseCommand(body string) (command, instruction string) {
	line, _, _ := strings.Cut(body, "\n")
	line = strings.TrimLeftFunc(line, unicode.IsSpace)
	if !strings.HasPrefix(line, "/") {
		return "", ""
	}
	end := strings.IndexFunc(line, unicode.IsSpace)
	if end < 0 {
		end = len(line)
	}
	command = line[:end]
	instruction = strings.TrimSpace(line[end:])
	return Truncate(command, MaxCommand), Truncate(instruction, MaxInstruction)
}

// CommentOf builds a comment from its full text: the body cut to
// MaxCommentBody code points (then marked Truncated, with the text's
// OriginalLength), the command and instruction parsed from that body.
func CommentOf(text string) *Comment {
	c := &Comment{Body: text}
	c.Shorten(MaxCommentBody)
	c.Command, c.Instruction = ParseCommand(c.Body)
	return c
}

// CommentWithID is CommentOf with the platform's numeric comment id
// (0: none).
func CommentWithID(text string, id int64) *Comment {
	c := CommentOf(text)
	if id != 0 {
		c.ID = strconv.FormatInt(id, 10)
	}
	return c
}

// Shorten cuts the body and the instruction to at most n code points (the
// command is kept). When anything is cut the comment is marked Truncated;
// OriginalLength keeps the length of the body before its first cut.
func (c *Comment) Shorten(n int) {
	body, instr := Truncate(c.Body, n), Truncate(c.Instruction, n)
	if body == c.Body && instr == c.Instruction {
		return
	}
	if !c.Truncated {
		c.Truncated, c.OriginalLength = true, utf8.RuneCountInString(c.Body)
	}
	c.Body, c.Instruction = body, instr
}
