package entity

import (
	"fmt"
	"io"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// DefaultMaxBytes is the size limit Read applies when given no limit. The
// largest valid entity (MaxActivity elements of event.MaxCommentBody code
// points, each escaped at most six bytes) stays under it.
const DefaultMaxBytes = 2 << 20

// Read reads one JSON entity of at most limit bytes (0 means
// DefaultMaxBytes) from r and decodes it with Decode. It never buffers
// more than limit+1 bytes. Errors reading r are returned wrapped, not as
// validation problems.
func Read(r io.Reader, limit int64) (*Entity, error) {
	data, err := event.ReadLimited(r, limit, DefaultMaxBytes, "entity")
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

// contract is NormalizedEntity v1's decoding and validation.
var contract = event.Contract[Entity]{Noun: "entity", Schema: compiled, Hints: hints, Rules: (*Entity).ruleProblems}

// Decode validates data, one JSON document, against the NormalizedEntity
// v1 schema and the rules the schema cannot express, then decodes it.
// Unknown fields anywhere are errors. Any problem yields an
// *event.ValidationError naming every offending JSON path; no partial
// entity is returned.
func Decode(data []byte) (*Entity, error) { return contract.Decode(data) }

// Validate checks an entity built in Go exactly as Decode checks a
// document: it returns an *event.ValidationError listing every problem,
// or nil.
func (e *Entity) Validate() error { return contract.Validate(e) }

// ruleProblems checks what the schema cannot say, skipping paths (and
// their children) the schema already reported.
func (e *Entity) ruleProblems(skip event.PathSet) []event.Problem {
	var ps []event.Problem
	add := func(path, msg string) {
		if !skip.Covers(path) {
			ps = append(ps, event.Problem{Path: path, Message: msg})
		}
	}
	if msg := event.RepoProblem(e.Repo); msg != "" {
		add("/repo", msg)
	}
	if msg := event.URLProblem(e.URL); msg != "" {
		add("/url", msg)
	}
	if l := e.LinkedChangeProposal; l != nil {
		if msg := event.URLProblem(l.URL); msg != "" {
			add("/linked_change_proposal/url", msg)
		}
	}
	never := "must be an array, never null"
	if e.State.Labels == nil {
		add("/state/labels", never)
	}
	if e.State.Assignees == nil {
		add("/state/assignees", never)
	}
	if e.Activity == nil {
		add("/activity", never)
	}
	seen := make(map[[2]string]int, len(e.Activity))
	for i, a := range e.Activity {
		path := fmt.Sprintf("/activity/%d", i)
		if i > 0 && a.Created.After(e.Activity[i-1].Created) {
			add(path+"/created", fmt.Sprintf("is after /activity/%d/created: activity is newest first", i-1))
		}
		k := [2]string{a.Kind, a.ID}
		if j, dup := seen[k]; dup {
			add(path+"/id", fmt.Sprintf("repeats the %s element /activity/%d", a.Kind, j))
		} else {
			seen[k] = i
		}
	}
	return ps
}
