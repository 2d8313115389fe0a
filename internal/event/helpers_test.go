package event

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// exampleJSON is the example of docs/events.md.
const exampleJSON = `{"repo":"acme/platform",
 "entity":{"kind":"work_item","id":10042,"key":"PROJ-123","url":"https://acme.atlassian.net/browse/PROJ-123"},
 "transition":{"kind":"comment_added","comment":{"command":"/fs-triage","body":"/fs-triage check acceptance criteria","instruction":"check acceptance criteria"}},
 "actor":{"id":"557058:abc123","kind":"human","role":"write","is_entity_author":false},
 "state":{"labels":["needs-info","bug"]},
 "source":{"system":"jira","raw_type":"comment","raw_action":"created"}}`

// pullRequestJSON is a GitHub pull request opened from a fork.
const pullRequestJSON = `{"repo":"acme/platform",
 "entity":{"kind":"change_proposal","id":7,"url":"https://github.com/acme/platform/pull/7"},
 "transition":{"kind":"opened"},
 "actor":{"id":"1234","kind":"human","role":"external","is_entity_author":true},
 "state":{"labels":[],"change_proposal":{"id":7,"head_repo":"fork/platform","base_repo":"acme/platform",
   "head_ref":"fix","base_ref":"main","author_id":"1234","is_fork":true,
   "head_sha":"0123456789abcdef0123456789abcdef01234567"}},
 "source":{"system":"github","raw_type":"pull_request","raw_action":"opened"}}`

// discussionJSON is a GitHub discussion.
const discussionJSON = `{"repo":"acme/platform",
 "entity":{"kind":"conversation","id":3,"url":"https://github.com/acme/platform/discussions/3"},
 "transition":{"kind":"opened"},
 "actor":{"id":"99","kind":"human","role":"read","is_entity_author":true},
 "state":{"labels":["question"],"conversation":{"category":{"name":"Q&A","slug":"q-a","is_answerable":true}}},
 "source":{"system":"github","raw_type":"discussion","raw_action":"created"}}`

// parse decodes a JSON document into a generic value for mutation.
func parse(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("test document: %v", err)
	}
	return m
}

// remove is a sentinel value: set(doc, path, remove) deletes the member.
type removeT struct{}

var remove = removeT{}

// set writes v at the JSON pointer path inside doc, creating objects on
// the way; v == remove deletes the member instead.
func set(t testing.TB, doc map[string]any, path string, v any) {
	t.Helper()
	toks := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var cur any = doc
	for i, tok := range toks {
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if v == remove {
					delete(c, tok)
				} else {
					c[tok] = v
				}
				return
			}
			next, ok := c[tok]
			if !ok {
				next = map[string]any{}
				c[tok] = next
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n >= len(c) {
				t.Fatalf("set %s: bad index %q", path, tok)
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			t.Fatalf("set %s: %q is not a container", path, tok)
		}
	}
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// problemsOf returns the problems of a *ValidationError, failing otherwise.
func problemsOf(t testing.TB, err error) []Problem {
	t.Helper()
	ve, ok := err.(*ValidationError)
	if !ok {
		t.Fatalf("error %T %v, want *ValidationError", err, err)
	}
	return ve.Problems
}

func hasPath(ps []Problem, path string) bool {
	for _, p := range ps {
		if p.Path == path {
			return true
		}
	}
	return false
}
