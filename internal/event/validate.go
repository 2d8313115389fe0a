package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// DefaultMaxBytes is the size limit Read applies when given no limit.
const DefaultMaxBytes = 1 << 20

// Read reads one JSON event of at most limit bytes (0 means
// DefaultMaxBytes) from r and decodes it with Decode. It never buffers more
// than limit+1 bytes: a larger input is rejected with a *ValidationError
// saying so. Errors reading r are returned wrapped, not as validation
// problems.
func Read(r io.Reader, limit int64) (*Event, error) {
	data, err := ReadLimited(r, limit, DefaultMaxBytes, "event")
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

// ReadLimited reads one document, what ("event", "entity"), of at most
// limit bytes from r (limit <= 0 means def), never buffering more than
// limit+1 bytes. A larger input is a *ValidationError saying so; an error
// reading r is returned wrapped.
func ReadLimited(r io.Reader, limit, def int64, what string) ([]byte, error) {
	if limit <= 0 {
		limit = def
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if int64(len(data)) > limit {
		return nil, newValidationError([]Problem{{Message: what + " is larger than " + SizeText(limit)}})
	}
	return data, nil
}

// SizeText renders a byte limit the way input errors print it: MiB or KiB
// when it is a whole number of them, else bytes.
func SizeText(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// contract is NormalizedEvent v1's decoding and validation.
var contract = Contract[Event]{Noun: "event", Schema: compiled, Hints: eventHints, Rules: (*Event).ruleProblems}

// Decode validates data, one JSON document, against the NormalizedEvent v1
// schema and the rules the schema cannot express, then decodes it. Unknown
// fields anywhere are errors. Any problem yields a *ValidationError naming
// every offending JSON path; no partial event is returned.
func Decode(data []byte) (*Event, error) { return contract.Decode(data) }

// Validate checks an event built in Go (by an input driver) exactly as
// Decode checks a document: it returns a *ValidationError listing every
// problem, or nil.
func (e *Event) Validate() error { return contract.Validate(e) }

// PathSet holds the JSON pointers that already have a problem.
type PathSet map[string]bool

type pathSet = PathSet

// reported returns the paths of ps.
func reported(ps []Problem) pathSet {
	m := make(pathSet, len(ps))
	for _, p := range ps {
		m[p.Path] = true
	}
	return m
}

// Covers reports whether path or one of its ancestors has a problem.
func (s PathSet) Covers(path string) bool { return s.covers(path) }

// covers reports whether path or one of its ancestors has a problem.
func (s pathSet) covers(path string) bool {
	for {
		if s[path] {
			return true
		}
		i := strings.LastIndexByte(path, '/')
		if i < 0 {
			return false
		}
		path = path[:i]
	}
}

// ruleProblems checks what the schema cannot say. Paths the schema already
// reported, or whose parent it reported, are skipped so one fault yields one
// message.
func (e *Event) ruleProblems(skip pathSet) []Problem {
	var ps []Problem
	add := func(path, msg string) {
		if !skip.covers(path) {
			ps = append(ps, Problem{Path: path, Message: msg})
		}
	}
	if msg := RepoProblem(e.Repo); msg != "" {
		add("/repo", msg)
	}
	if e.State.Labels == nil {
		add("/state/labels", "must be an array, never null")
	}
	if msg := absoluteURL(e.Entity.URL); msg != "" {
		add("/entity/url", msg)
	}
	if l := e.Entity.LinkedChangeProposal; l != nil {
		if msg := absoluteURL(l.URL); msg != "" {
			add("/entity/linked_change_proposal/url", msg)
		}
	}
	return ps
}

// RepoProblem returns why a repository slug the schema's pattern accepts
// is still not one ("." and ".." segments), or "".
func RepoProblem(repo string) string {
	for _, seg := range strings.Split(repo, "/") {
		if seg == ".." || seg == "." {
			return fmt.Sprintf("must not contain a %q segment", seg)
		}
	}
	return ""
}

// URLProblem returns why s is not an absolute URI with a host, or "": the
// rule every URL of the contracts (events, entities) follows.
func URLProblem(s string) string { return absoluteURL(s) }

// absoluteURL returns why s is not an absolute URI, or "".
func absoluteURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Sprintf("must be an absolute URI: %v", errors.Unwrap(err))
	case !u.IsAbs():
		return "must be an absolute URI (with a scheme such as https:)"
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host == "":
		return "must name a host"
	}
	return ""
}

// syntaxMessage describes a JSON syntax error with its line and column.
func syntaxMessage(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(data, se.Offset)
		return fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if len(bytes.TrimSpace(data)) == 0 {
			return "invalid JSON: empty input"
		}
		return "invalid JSON: unexpected end of input"
	}
	return "invalid JSON: " + err.Error()
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

// unmarshalProblem is the problem for an error of json.Unmarshal on a
// document the schema accepted (what names the document in the message).
func unmarshalProblem(err error, what string) Problem {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return Problem{
			Path:    "/" + strings.ReplaceAll(te.Field, ".", "/"),
			Message: fmt.Sprintf("must be a plain %s (got JSON %s)", goKind(te.Type.Kind().String()), te.Value),
		}
	}
	return Problem{Message: "cannot decode " + what + ": " + err.Error()}
}

func goKind(k string) string {
	if strings.HasPrefix(k, "int") {
		return "integer without fraction or exponent"
	}
	return k
}
