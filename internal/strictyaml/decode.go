// Package strictyaml decodes YAML files strictly: exactly one document,
// every key known, every value of its type and range, each problem
// recorded at file:line:col and all of them returned together (Errors).
// The decoders of config.yaml (package config) and of harness files
// (package harness) are built on it.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Decoder walks a yaml.Node tree, recording every problem with its
// position in file. Its helpers never stop at the first problem: a bad
// value is reported and left at its zero value.
type Decoder struct {
	File     string
	Problems Errors
}

func (d *Decoder) ErrAt(n *yaml.Node, format string, args ...any) {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, n.Column
	}
	d.Problems = append(d.Problems, Problem{File: d.File, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

var yamlLineRE = regexp.MustCompile(`line (\d+): (.*)`)

// ParseDocument parses src as exactly one YAML document and returns its
// root node (a mapping, a sequence or a scalar), or nil after recording
// the problem. The yaml library reports only a line for syntax errors, so
// those problems use column 1.
func (d *Decoder) ParseDocument(src []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.ErrAt(nil, "file is empty; want a YAML mapping")
			return nil
		}
		d.syntaxErr(err, src)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.ErrAt(&extra, "a second YAML document is not allowed")
	} else if !errors.Is(err, io.EOF) {
		d.syntaxErr(err, src)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		d.ErrAt(&doc, "file is empty; want a YAML mapping")
		return nil
	}
	return doc.Content[0]
}

// parserProblems are the yaml library's parser (not scanner) messages.
// For these it reports the 0-based line of the construct being parsed,
// so one is added and the result kept within the file.
var parserProblems = []string{
	"did not find expected ',' or", "did not find expected '-' indicator",
	"did not find expected <", "did not find expected key", "did not find expected node content",
	"found duplicate %", "found incompatible YAML document", "found undefined tag handle",
}

func (d *Decoder) syntaxErr(err error, src []byte) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if l, convErr := strconv.Atoi(m[1]); convErr == nil && l > 0 {
			line = l
		}
		msg = m[2]
		for _, p := range parserProblems {
			if strings.HasPrefix(msg, p) {
				line++
				break
			}
		}
	}
	if last := lastContentLine(src); line > last {
		line = last
	}
	col := 1
	if strings.Contains(msg, "tab character") {
		line, col = indentTab(src, line)
	}
	d.Problems = append(d.Problems, Problem{File: d.File, Line: line, Col: col, Msg: "invalid YAML: " + msg})
}

// indentTab finds the tab the yaml library complains about: it reports the
// line of the token before it, so the first line from there on whose
// indentation holds a tab is the one. It returns that line and the tab's
// column, or line and column 1 when there is none.
func indentTab(src []byte, line int) (int, int) {
	lines := strings.Split(string(src), "\n")
	for i := line - 1; i >= 0 && i < len(lines); i++ {
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " \t"))
		if j := strings.IndexByte(lines[i][:indent], '\t'); j >= 0 {
			return i + 1, j + 1
		}
	}
	return line, 1
}

// lastContentLine returns the 1-based number of the last non-blank line
// of src (at least 1).
func lastContentLine(src []byte) int {
	lines := strings.Split(string(src), "\n")
	for i := len(lines) - 1; i > 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return i + 1
		}
	}
	return 1
}

// IsNull reports whether n is absent or an explicit null; such values
// count as "not set" and keep their defaults.
func IsNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!null":
			return "null"
		}
		return "a " + strings.TrimPrefix(n.Tag, "!!") + " value"
	}
	return "an unsupported YAML node"
}

// noAlias rejects anchors' aliases and merge keys: they are not needed in
// these small files and expanding them could blow up memory.
func (d *Decoder) noAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		d.ErrAt(n, "YAML aliases (*name) are not supported; write the value out")
		return false
	}
	return true
}

// Fields walks a mapping whose allowed keys are the keys of handlers:
// unknown and duplicate keys are problems, and each handler is called with
// its value node. Null values are skipped (the field keeps its default).
// what names the object in messages, e.g. "poll.input_drivers[0]".
func (d *Decoder) Fields(n *yaml.Node, what string, handlers map[string]func(*yaml.Node)) {
	if IsNull(n) || !d.noAlias(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.ErrAt(n, "%s: want a mapping, got %s", what, KindName(n))
		return
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.ErrAt(k, "%s: keys must be plain strings", what)
			continue
		}
		if k.Tag == "!!merge" {
			d.ErrAt(k, "%s: YAML merge keys (<<) are not supported", what)
			continue
		}
		if seen[k.Value] {
			d.ErrAt(k, "%s: duplicate key %q", what, k.Value)
			continue
		}
		seen[k.Value] = true
		h, ok := handlers[k.Value]
		if !ok {
			d.ErrAt(k, "%s: unknown key %q (allowed: %s)", what, k.Value, keyList(handlers))
			continue
		}
		if IsNull(v) || !d.noAlias(v) {
			continue
		}
		h(v)
	}
}

func keyList(handlers map[string]func(*yaml.Node)) string {
	keys := make([]string, 0, len(handlers))
	for k := range handlers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// Scalar checks n is a scalar of one of the given tags.
func (d *Decoder) Scalar(n *yaml.Node, what, want string, tags ...string) bool {
	if n.Kind == yaml.ScalarNode {
		for _, t := range tags {
			if n.Tag == t {
				return true
			}
		}
	}
	d.ErrAt(n, "%s: want %s, got %s", what, want, KindName(n))
	return false
}

// Str decodes a string. Integers are accepted as their text (workflow and
// project ids may be numeric).
func (d *Decoder) Str(n *yaml.Node, what string, dst *string) {
	if d.Scalar(n, what, "a string", "!!str", "!!int") {
		*dst = n.Value
	}
}

// Enum decodes a string that must be one of allowed.
func (d *Decoder) Enum(n *yaml.Node, what string, dst *string, allowed ...string) {
	var s string
	d.Str(n, what, &s)
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!int") {
		return
	}
	for _, a := range allowed {
		if s == a {
			*dst = s
			return
		}
	}
	d.ErrAt(n, "%s: %q is not one of %s", what, s, strings.Join(allowed, ", "))
}

func (d *Decoder) Boolean(n *yaml.Node, what string, dst *bool) {
	if d.Scalar(n, what, "true or false", "!!bool") {
		var b bool
		if err := n.Decode(&b); err != nil {
			d.ErrAt(n, "%s: %v", what, err)
			return
		}
		*dst = b
	}
}

// positiveInt decodes an integer >= min.
func (d *Decoder) IntMin(n *yaml.Node, what string, min int, dst *int) {
	if !d.Scalar(n, what, "an integer", "!!int") {
		return
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v > math.MaxInt32 {
		d.ErrAt(n, "%s: %q is not an integer in range", what, n.Value)
		return
	}
	if v < int64(min) {
		d.ErrAt(n, "%s: must be at least %d, got %d", what, min, v)
		return
	}
	*dst = int(v)
}

// PositiveFloat decodes a number > 0.
func (d *Decoder) PositiveFloat(n *yaml.Node, what string, dst *float64) {
	if !d.Scalar(n, what, "a number", "!!int", "!!float") {
		return
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.ErrAt(n, "%s: %q is not a finite number", what, n.Value)
		return
	}
	if v <= 0 {
		d.ErrAt(n, "%s: must be greater than 0, got %v", what, v)
		return
	}
	*dst = v
}

// Duration decodes a positive Go duration such as "900s" or "5m".
func (d *Decoder) Duration(n *yaml.Node, what string, dst *time.Duration) {
	d.duration(n, what, positiveDuration, dst)
}

// DurationAtLeast decodes a duration of at least least.
func (d *Decoder) DurationAtLeast(n *yaml.Node, what string, least time.Duration, dst *time.Duration) {
	var v time.Duration
	before := len(d.Problems)
	d.Duration(n, what, &v)
	if len(d.Problems) > before {
		return
	}
	if v < least {
		d.ErrAt(n, "%s: at least %s, got %s", what, least, n.Value)
		return
	}
	*dst = v
}

// DurationMin0 decodes a duration that may be zero (a setting whose 0s
// switches something off) but not negative.
func (d *Decoder) DurationMin0(n *yaml.Node, what string, dst *time.Duration) {
	d.duration(n, what, nonNegativeDuration, dst)
}

// durationRule is the range a duration setting accepts (ok), worded for
// its problems: what it wants, examples and the rule it breaks.
type durationRule struct {
	want, examples, rule string
	ok                   func(time.Duration) bool
}

var (
	positiveDuration = durationRule{`a duration such as "900s" or "5m"`, "900s, 5m, 1h30m", "must be greater than 0",
		func(v time.Duration) bool { return v > 0 }}
	nonNegativeDuration = durationRule{`a duration such as "0s" or "5m"`, "0s, 90s, 5m", "must not be negative",
		func(v time.Duration) bool { return v >= 0 }}
)

// duration decodes a Go duration within r.
func (d *Decoder) duration(n *yaml.Node, what string, r durationRule, dst *time.Duration) {
	if !d.Scalar(n, what, r.want, "!!str") {
		return
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		d.ErrAt(n, "%s: %q is not a Go duration (examples: %s)", what, n.Value, r.examples)
		return
	}
	if !r.ok(v) {
		d.ErrAt(n, "%s: %s, got %s", what, r.rule, n.Value)
		return
	}
	*dst = v
}

// StrList decodes a list of strings; each element is checked by check
// (which may be nil) and reported at its own position.
func (d *Decoder) StrList(n *yaml.Node, what string, dst *[]string, check func(string) error) {
	if n.Kind != yaml.SequenceNode {
		d.ErrAt(n, "%s: want a list of strings, got %s", what, KindName(n))
		return
	}
	out := make([]string, 0, len(n.Content))
	for i, e := range n.Content {
		ew := fmt.Sprintf("%s[%d]", what, i)
		if !d.noAlias(e) {
			continue
		}
		var s string
		if !d.Scalar(e, ew, "a string", "!!str", "!!int") {
			continue
		}
		s = e.Value
		if check != nil {
			if err := check(s); err != nil {
				d.ErrAt(e, "%s: %v", ew, err)
				continue
			}
		}
		out = append(out, s)
	}
	*dst = out
}

// Seq calls f for each element of a list.
func (d *Decoder) Seq(n *yaml.Node, what string, f func(i int, e *yaml.Node)) {
	if n.Kind != yaml.SequenceNode {
		d.ErrAt(n, "%s: want a list, got %s", what, KindName(n))
		return
	}
	for i, e := range n.Content {
		if d.noAlias(e) {
			f(i, e)
		}
	}
}

// Role decodes one of the actor roles of event.Role into dst.
func (d *Decoder) Role(n *yaml.Node, what string, dst *event.Role) {
	s := string(*dst)
	d.Enum(n, what, &s, event.RoleNames()...)
	*dst = event.Role(s)
}
