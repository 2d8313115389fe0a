package harness

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// triggerSource is what TriggerPos needs to map a position inside the
// trigger expression back to the harness file.
type triggerSource struct {
	lines []string // the harness file, split into lines
	style yaml.Style
	line  int // 1-based line of the scalar node (the indicator for | and >)
	col   int // 1-based column of the scalar node
	value string
}

// TriggerPos maps a 1-based line:col inside the trigger expression (as
// reported by trigger.CompileError) to a 1-based line:col in the harness
// file.
//
// The mapping is exact for single-line scalars, literal block scalars (|)
// and folded block scalars (>, >-) whose lines share one indentation.
// It is an approximation when the YAML scalar itself rewrote the text:
// escape sequences in double-quoted scalars, more-indented lines inside a
// folded scalar, or tabs (counted as one column). In those cases the line
// is right and the column may be off by the number of rewritten
// characters before the problem.
func (h *File) TriggerPos(line, col int) (int, int) {
	return h.trig.pos(line, col, h.TriggerLine, h.TriggerCol)
}

// pos is TriggerPos for the expression t describes, which starts at
// startLine:startCol in the file (where positions fall back to).
func (t *triggerSource) pos(line, col, startLine, startCol int) (int, int) {
	if t.lines == nil {
		return startLine, startCol
	}
	off := min(valueOffset(t.value, line, col), utf8.RuneCountInString(t.value))
	block := t.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
	var segs []segment
	if block {
		segs = blockSegments(t.lines, t.line, t.style&yaml.LiteralStyle != 0)
	} else {
		segs = flowSegments(t.lines, t.line, t.col, t.style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0)
	}
	if len(segs) == 0 {
		return startLine, startCol
	}
	for _, s := range segs {
		if off <= s.n {
			return s.line, s.col + off
		}
		off -= s.n + s.sep
	}
	last := segs[len(segs)-1]
	return last.line, last.col + last.n
}

// valueOffset converts a 1-based line:col in value into a rune offset.
func valueOffset(value string, line, col int) int {
	vl := strings.Split(value, "\n")
	if line > len(vl) {
		line = len(vl)
	}
	off := 0
	for i := 0; i < line-1; i++ {
		off += utf8.RuneCountInString(vl[i]) + 1
	}
	if col > 1 {
		off += col - 1
	}
	return off
}

// segment is one source line's share of a scalar's value.
type segment struct {
	line, col int // where the segment's text starts in the file (1-based)
	n         int // runes of value text on this line
	sep       int // runes the line break after it contributes to the value
}

// blockSegments lists the content lines of a block scalar whose indicator
// is on line indLine. In a literal scalar every line break is kept; in a
// folded one a break before a blank line disappears and the others become
// one space or newline, which is one rune either way.
func blockSegments(lines []string, indLine int, literal bool) []segment {
	indent := -1
	var segs []segment
	for i := indLine; i < len(lines); i++ { // lines[indLine] is the line after the indicator
		text := strings.TrimRight(lines[i], "\r")
		blank := strings.TrimSpace(text) == ""
		lead := len(text) - len(strings.TrimLeft(text, " "))
		if indent < 0 && !blank {
			indent = lead
		}
		if !blank && lead < indent {
			break
		}
		s := segment{line: i + 1, sep: 1}
		if !blank {
			s.col = indent + 1
			s.n = utf8.RuneCountInString(text[indent:])
		} else {
			s.col = 1
		}
		segs = append(segs, s)
	}
	for len(segs) > 0 && segs[len(segs)-1].n == 0 {
		segs = segs[:len(segs)-1]
	}
	if !literal {
		for i := 0; i+1 < len(segs); i++ {
			if segs[i].n > 0 && segs[i+1].n == 0 {
				segs[i].sep = 0
			}
		}
	}
	return segs
}

// flowSegments lists the lines of a plain or quoted scalar starting at
// line:col; continuation lines lose their leading whitespace.
func flowSegments(lines []string, line, col int, quoted bool) []segment {
	var segs []segment
	for i := line - 1; i < len(lines); i++ {
		text := strings.TrimRight(lines[i], "\r \t")
		start := 0
		if i == line-1 {
			start = runeIndex(text, col-1)
			if quoted {
				start++
			}
		} else {
			start = len(text) - len(strings.TrimLeft(text, " \t"))
		}
		if start > len(text) {
			start = len(text)
		}
		segs = append(segs, segment{line: i + 1, col: utf8.RuneCountInString(text[:start]) + 1,
			n: utf8.RuneCountInString(text[start:]), sep: 1})
	}
	return segs
}

// runeIndex returns the byte index of the n-th rune of s (len(s) if past
// the end).
func runeIndex(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
