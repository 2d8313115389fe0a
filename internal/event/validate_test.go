package event

import (
	"reflect"
	"strings"
	"testing"
)

type mutation struct {
	path string
	v    any
}

// mutated returns the JSON document base with muts applied in order.
func mutated(t *testing.T, base string, muts []mutation) []byte {
	t.Helper()
	doc := parse(t, base)
	for _, m := range muts {
		set(t, doc, m.path, m.v)
	}
	return marshal(t, doc)
}

func TestDecodeValid(t *testing.T) {
	tests := []struct {
		name string
		base string
		muts []mutation
		want func(*Event) bool
	}{
		{"design example", exampleJSON, nil, func(e *Event) bool {
			return e.Entity.Key == "PROJ-123" && e.Transition.Comment.Command == "/fs-triage" &&
				e.Transition.Comment.Instruction == "check acceptance criteria" && len(e.State.Labels) == 2
		}},
		{"one-letter project key (Jira Data Center)", exampleJSON, []mutation{{"/entity/key", "A-1"}}, func(e *Event) bool {
			return e.Entity.Key == "A-1"
		}},
		{"issue number 0", exampleJSON, []mutation{{"/entity/key", "PROJ-0"}}, func(e *Event) bool {
			return e.Entity.Key == "PROJ-0"
		}},
		{"fork pull request", pullRequestJSON, nil, func(e *Event) bool {
			return e.State.ChangeProposal.IsFork && e.State.ChangeProposal.HeadSHA[:4] == "0123"
		}},
		{"discussion", discussionJSON, nil, func(e *Event) bool {
			return e.State.Conversation.Category.Name == "Q&A" && e.State.Conversation.Category.IsAnswerable
		}},
		{"sha256 head", pullRequestJSON, []mutation{{"/state/change_proposal/head_sha", strings.Repeat("aB", 32)}}, func(e *Event) bool {
			return len(e.State.ChangeProposal.HeadSHA) == 64
		}},
		{"label changed", pullRequestJSON, []mutation{{"/transition", map[string]any{"kind": "label_changed", "label": map[string]any{"name": "ok-to-test", "action": "removed"}}}}, func(e *Event) bool {
			return e.Transition.Label.Action == "removed"
		}},
		{"review submitted", pullRequestJSON, []mutation{{"/transition", map[string]any{"kind": "review_submitted", "review": map[string]any{"state": "changes_requested", "reviewer_id": "42"}}}}, func(e *Event) bool {
			return e.Transition.Review.State == "changes_requested"
		}},
		{"comment on a pull request thread", exampleJSON, []mutation{
			{"/entity/linked_change_proposal", map[string]any{"id": 7, "url": "https://github.com/acme/platform/pull/7"}},
			{"/transition/comment/id", "c1"}, {"/transition/comment/parent_id", "c0"},
		}, func(e *Event) bool {
			return e.Entity.LinkedChangeProposal.ID == 7 && e.Transition.Comment.ParentID == "c0"
		}},
		{"comment without command", exampleJSON, []mutation{{"/transition/comment", map[string]any{"body": ""}}}, func(e *Event) bool {
			return e.Transition.Comment.Command == "" && e.Transition.Comment.Body == ""
		}},
		{"manual event without key", pullRequestJSON, []mutation{{"/source", map[string]any{"system": "manual", "raw_type": "cli"}}}, func(e *Event) bool {
			return e.Source.System == SystemManual && e.Source.RawAction == ""
		}},
		{"schedule event with key", exampleJSON, []mutation{{"/source/system", "schedule"}}, func(e *Event) bool { return e.Source.System == SystemSchedule }},
		{"repo three chars, deep path", exampleJSON, []mutation{{"/repo", "a.b"}}, func(e *Event) bool { return e.Repo == "a.b" }},
		{"gitlab subgroup repo", exampleJSON, []mutation{{"/repo", "group/sub-group/my_project.v2"}}, func(e *Event) bool { return strings.Count(e.Repo, "/") == 2 }},
		{"repo 512 chars", exampleJSON, []mutation{{"/repo", strings.Repeat("a", 256) + "/" + strings.Repeat("b", 255)}}, func(e *Event) bool { return len(e.Repo) == 512 }},
		{"url 2048 chars", exampleJSON, []mutation{{"/entity/url", "https://x.example/" + strings.Repeat("p", 2048-18)}}, func(e *Event) bool { return len(e.Entity.URL) == 2048 }},
		{"largest id", exampleJSON, []mutation{{"/entity/id", 9223372036854775807}}, func(e *Event) bool { return e.Entity.ID == 1<<63-1 }},
		{"key with underscore", exampleJSON, []mutation{{"/entity/key", "My_PROJ2-9"}}, func(e *Event) bool { return e.Entity.Key == "My_PROJ2-9" }},
		{"bot actor", exampleJSON, []mutation{{"/actor/kind", "bot"}, {"/actor/role", "none"}}, func(e *Event) bool { return e.Actor.Kind == ActorBot }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Decode(mutated(t, tc.base, tc.muts))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !tc.want(ev) {
				t.Fatalf("decoded event lacks expected values: %+v", ev)
			}
			if err := ev.Validate(); err != nil {
				t.Fatalf("Validate of decoded event: %v", err)
			}
		})
	}
}

func TestDecodeInvalid(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name string
		base string
		muts []mutation
		path string // expected problem path
		msg  string // expected substring of that problem's message
	}{
		// document
		{"unknown top-level field", exampleJSON, []mutation{{"/extra", 1}}, "/extra", "unknown field"},
		{"missing repo", exampleJSON, []mutation{{"/repo", remove}}, "/repo", "required"},
		{"missing entity", exampleJSON, []mutation{{"/entity", remove}}, "/entity", "required"},
		{"missing transition", exampleJSON, []mutation{{"/transition", remove}}, "/transition", "required"},
		{"missing actor", exampleJSON, []mutation{{"/actor", remove}}, "/actor", "required"},
		{"missing state", exampleJSON, []mutation{{"/state", remove}}, "/state", "required"},
		{"missing source", exampleJSON, []mutation{{"/source", remove}}, "/source", "required"},
		// repo
		{"repo too short", exampleJSON, []mutation{{"/repo", "ab"}}, "/repo", "at least 3"},
		{"repo too long", exampleJSON, []mutation{{"/repo", long(300) + "/" + long(212)}}, "/repo", "at most 512"},
		{"repo with space", exampleJSON, []mutation{{"/repo", "acme/plat form"}}, "/repo", "segments"},
		{"repo empty segment", exampleJSON, []mutation{{"/repo", "acme//x"}}, "/repo", "segments"},
		{"repo leading slash", exampleJSON, []mutation{{"/repo", "/acme/x"}}, "/repo", "segments"},
		{"repo trailing slash", exampleJSON, []mutation{{"/repo", "acme/x/"}}, "/repo", "segments"},
		{"repo dot-dot segment", exampleJSON, []mutation{{"/repo", "acme/../etc"}}, "/repo", `".."`},
		{"repo dot-dot last", exampleJSON, []mutation{{"/repo", "acme/.."}}, "/repo", `".."`},
		{"repo dot segment", exampleJSON, []mutation{{"/repo", "./acme"}}, "/repo", `"."`},
		{"repo not a string", exampleJSON, []mutation{{"/repo", 12345}}, "/repo", "must be a string"},
		// entity
		{"entity kind", exampleJSON, []mutation{{"/entity/kind", "issue"}}, "/entity/kind", `must be one of "work_item"`},
		{"entity id zero", exampleJSON, []mutation{{"/entity/id", 0}}, "/entity/id", "at least 1"},
		{"entity id negative", exampleJSON, []mutation{{"/entity/id", -5}}, "/entity/id", "at least 1"},
		{"entity id string", exampleJSON, []mutation{{"/entity/id", "10042"}}, "/entity/id", "integer"},
		{"entity id fraction", exampleJSON, []mutation{{"/entity/id", 1.5}}, "/entity/id", "integer"},
		{"entity id too large", exampleJSON, []mutation{{"/entity/id", 1e19}}, "/entity/id", "at most"},
		{"entity url missing", exampleJSON, []mutation{{"/entity/url", remove}}, "/entity/url", "required"},
		{"entity url relative", exampleJSON, []mutation{{"/entity/url", "/browse/PROJ-123"}}, "/entity/url", "absolute URI"},
		{"entity url empty", exampleJSON, []mutation{{"/entity/url", ""}}, "/entity/url", "absolute URI"},
		{"entity url too long", exampleJSON, []mutation{{"/entity/url", "https://x.example/" + long(2048-17)}}, "/entity/url", "at most 2048"},
		{"entity url http without host", exampleJSON, []mutation{{"/entity/url", "https:opaque"}}, "/entity/url", "host"},
		{"entity key lowercase digits first", exampleJSON, []mutation{{"/entity/key", "1PROJ-1"}}, "/entity/key", "Jira issue key"},
		{"entity key project key only", exampleJSON, []mutation{{"/entity/key", "P"}}, "/entity/key", "Jira issue key"},
		{"entity key no number", exampleJSON, []mutation{{"/entity/key", "PROJ-"}}, "/entity/key", "Jira issue key"},
		{"entity key required for jira", exampleJSON, []mutation{{"/entity/key", remove}}, "/entity/key", "required when source.system is jira"},
		{"entity unknown field", exampleJSON, []mutation{{"/entity/number", 1}}, "/entity/number", "unknown field"},
		{"linked change proposal on change proposal", pullRequestJSON, []mutation{{"/entity/linked_change_proposal", map[string]any{"id": 1, "url": "https://x.example/1"}}}, "/entity/linked_change_proposal", "not allowed when entity.kind is change_proposal"},
		{"linked change proposal without url", exampleJSON, []mutation{{"/entity/linked_change_proposal", map[string]any{"id": 1}}}, "/entity/linked_change_proposal/url", "required"},
		{"linked change proposal relative url", exampleJSON, []mutation{{"/entity/linked_change_proposal", map[string]any{"id": 1, "url": "pull/1"}}}, "/entity/linked_change_proposal/url", "absolute URI"},
		{"linked change proposal unknown field", exampleJSON, []mutation{{"/entity/linked_change_proposal", map[string]any{"id": 1, "url": "https://x.example/1", "sha": "x"}}}, "/entity/linked_change_proposal/sha", "unknown field"},
		// transition
		{"transition kind", exampleJSON, []mutation{{"/transition/kind", "created"}}, "/transition/kind", "must be one of"},
		{"label missing", pullRequestJSON, []mutation{{"/transition/kind", "label_changed"}}, "/transition/label", "required when transition.kind is label_changed"},
		{"label on other kind", pullRequestJSON, []mutation{{"/transition/label", map[string]any{"name": "x", "action": "added"}}}, "/transition/label", "allowed only when transition.kind is label_changed"},
		{"label action", pullRequestJSON, []mutation{{"/transition", map[string]any{"kind": "label_changed", "label": map[string]any{"name": "x", "action": "toggled"}}}}, "/transition/label/action", "must be one of"},
		{"label name missing", pullRequestJSON, []mutation{{"/transition", map[string]any{"kind": "label_changed", "label": map[string]any{"action": "added"}}}}, "/transition/label/name", "required"},
		{"comment missing", exampleJSON, []mutation{{"/transition/comment", remove}}, "/transition/comment", "required when transition.kind is comment_added"},
		{"comment on other kind", exampleJSON, []mutation{{"/transition/kind", "edited"}}, "/transition/comment", "allowed only when transition.kind is comment_added"},
		{"comment body missing", exampleJSON, []mutation{{"/transition/comment/body", remove}}, "/transition/comment/body", "required"},
		{"comment body too long", exampleJSON, []mutation{{"/transition/comment/body", long(4097)}}, "/transition/comment/body", "at most 4096"},
		{"comment command too long", exampleJSON, []mutation{{"/transition/comment/command", "/" + long(64)}}, "/transition/comment/command", "at most 64"},
		{"comment command without slash", exampleJSON, []mutation{{"/transition/comment/command", "fs-triage"}}, "/transition/comment/command", "must start with '/'"},
		{"comment command with space", exampleJSON, []mutation{{"/transition/comment/command", "/fs triage"}}, "/transition/comment/command", "no whitespace"},
		{"comment instruction without command", exampleJSON, []mutation{{"/transition/comment/command", remove}}, "/transition/comment/command", "required when instruction is set"},
		{"comment instruction too long", exampleJSON, []mutation{{"/transition/comment/instruction", long(4097)}}, "/transition/comment/instruction", "at most 4096"},
		{"comment id not string", exampleJSON, []mutation{{"/transition/comment/id", 12}}, "/transition/comment/id", "must be a string"},
		{"comment unknown field", exampleJSON, []mutation{{"/transition/comment/author", "x"}}, "/transition/comment/author", "unknown field"},
		{"review missing", pullRequestJSON, []mutation{{"/transition/kind", "review_submitted"}}, "/transition/review", "required when transition.kind is review_submitted"},
		{"review on other kind", pullRequestJSON, []mutation{{"/transition/review", map[string]any{"state": "approved", "reviewer_id": "1"}}}, "/transition/review", "allowed only when transition.kind is review_submitted"},
		{"review state", pullRequestJSON, []mutation{{"/transition", map[string]any{"kind": "review_submitted", "review": map[string]any{"state": "lgtm", "reviewer_id": "1"}}}}, "/transition/review/state", "must be one of"},
		{"review reviewer missing", pullRequestJSON, []mutation{{"/transition", map[string]any{"kind": "review_submitted", "review": map[string]any{"state": "approved"}}}}, "/transition/review/reviewer_id", "required"},
		// actor
		{"actor id missing", exampleJSON, []mutation{{"/actor/id", remove}}, "/actor/id", "required"},
		{"actor id empty", exampleJSON, []mutation{{"/actor/id", ""}}, "/actor/id", "empty"},
		{"actor kind", exampleJSON, []mutation{{"/actor/kind", "robot"}}, "/actor/kind", `"human", "bot"`},
		{"actor role", exampleJSON, []mutation{{"/actor/role", "owner"}}, "/actor/role", `"admin", "maintain", "write", "triage", "read", "none", "external"`},
		{"actor author missing", exampleJSON, []mutation{{"/actor/is_entity_author", remove}}, "/actor/is_entity_author", "required"},
		{"actor author not bool", exampleJSON, []mutation{{"/actor/is_entity_author", "no"}}, "/actor/is_entity_author", "must be a boolean"},
		// state
		{"labels missing", exampleJSON, []mutation{{"/state/labels", remove}}, "/state/labels", "required"},
		{"labels null", exampleJSON, []mutation{{"/state/labels", nil}}, "/state/labels", "not null"},
		{"label not string", exampleJSON, []mutation{{"/state/labels", []any{"ok", 3}}}, "/state/labels/1", "must be a string"},
		{"label empty", exampleJSON, []mutation{{"/state/labels", []any{""}}}, "/state/labels/0", "empty"},
		{"change proposal field missing", pullRequestJSON, []mutation{{"/state/change_proposal/head_ref", remove}}, "/state/change_proposal/head_ref", "required"},
		{"change proposal is_fork missing", pullRequestJSON, []mutation{{"/state/change_proposal/is_fork", remove}}, "/state/change_proposal/is_fork", "required"},
		{"head sha 39 hex", pullRequestJSON, []mutation{{"/state/change_proposal/head_sha", long(0) + strings.Repeat("a", 39)}}, "/state/change_proposal/head_sha", "40 or 64"},
		{"head sha not hex", pullRequestJSON, []mutation{{"/state/change_proposal/head_sha", strings.Repeat("g", 40)}}, "/state/change_proposal/head_sha", "40 or 64"},
		{"head sha 50 hex", pullRequestJSON, []mutation{{"/state/change_proposal/head_sha", strings.Repeat("a", 50)}}, "/state/change_proposal/head_sha", "40 or 64"},
		{"change proposal unknown field", pullRequestJSON, []mutation{{"/state/change_proposal/draft", true}}, "/state/change_proposal/draft", "unknown field"},
		{"conversation missing", discussionJSON, []mutation{{"/state/conversation", remove}}, "/state/conversation", "required when entity.kind is conversation"},
		{"conversation on work item", exampleJSON, []mutation{{"/state/conversation", map[string]any{"category": map[string]any{"name": "x"}}}}, "/state/conversation", "allowed only when entity.kind is conversation"},
		{"category name missing", discussionJSON, []mutation{{"/state/conversation/category/name", remove}}, "/state/conversation/category/name", "required"},
		{"category unknown field", discussionJSON, []mutation{{"/state/conversation/category/emoji", ":q:"}}, "/state/conversation/category/emoji", "unknown field"},
		{"state unknown field", exampleJSON, []mutation{{"/state/milestone", "v1"}}, "/state/milestone", "unknown field"},
		// source
		{"source system", exampleJSON, []mutation{{"/source/system", "bitbucket"}}, "/source/system", `"github", "gitlab", "jira", "manual", "schedule"`},
		{"source raw type missing", exampleJSON, []mutation{{"/source/raw_type", remove}}, "/source/raw_type", "required"},
		{"source raw type empty", exampleJSON, []mutation{{"/source/raw_type", ""}}, "/source/raw_type", "empty"},
		{"source raw action not string", exampleJSON, []mutation{{"/source/raw_action", false}}, "/source/raw_action", "must be a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Decode(mutated(t, tc.base, tc.muts))
			if err == nil {
				t.Fatalf("Decode accepted invalid event: %+v", ev)
			}
			if ev != nil {
				t.Fatalf("Decode returned an event with its error")
			}
			ps := problemsOf(t, err)
			var found bool
			for _, p := range ps {
				if p.Path == tc.path && strings.Contains(p.Message, tc.msg) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no problem at %s containing %q; got:\n%v", tc.path, tc.msg, err)
			}
		})
	}
}

func TestDecodeSyntax(t *testing.T) {
	tests := []struct {
		name, in, msg string
	}{
		{"empty", "", "empty input"},
		{"blank", " \n\t", "empty input"},
		{"truncated", `{"repo":"a/b"`, "unexpected end"},
		{"bad token", "{\n  \"repo\": x}", "line 2, column"},
		{"trailing value", exampleJSON + ` {}`, "after top-level value"},
		{"not an object", `[1,2]`, "must be an object, not an array"},
		{"null", `null`, "must be an object, not null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in))
			if err == nil {
				t.Fatal("Decode accepted it")
			}
			ps := problemsOf(t, err)
			if len(ps) != 1 || ps[0].Path != "" || !strings.Contains(ps[0].Message, tc.msg) {
				t.Fatalf("got %#v, want one document problem containing %q", ps, tc.msg)
			}
		})
	}
}

func TestDecodeCodePoints(t *testing.T) {
	emoji := "\U0001F600" // 4 bytes in UTF-8, 2 units in UTF-16
	tests := []struct {
		name  string
		body  string
		raw   bool // body is already JSON-escaped text
		valid bool
	}{
		{"4096 emoji", strings.Repeat(emoji, 4096), false, true},
		{"4097 emoji", strings.Repeat(emoji, 4097), false, false},
		{"4096 escaped surrogate pairs", strings.Repeat(`\ud83d\ude00`, 4096), true, true},
		{"4097 escaped surrogate pairs", strings.Repeat(`\ud83d\ude00`, 4097), true, false},
		{"4096 combining marks", strings.Repeat("e\u0301", 2048), false, true},
		{"4096 ASCII", strings.Repeat("a", 4096), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, exampleJSON)
			set(t, doc, "/transition/comment/body", "BODY")
			data := marshal(t, doc)
			body := tc.body
			if !tc.raw {
				body = string(marshal(t, tc.body))
				body = body[1 : len(body)-1]
			}
			data = []byte(strings.Replace(string(data), `"BODY"`, `"`+body+`"`, 1))
			ev, err := Decode(data)
			if tc.valid != (err == nil) {
				t.Fatalf("valid=%v, err=%v", tc.valid, err)
			}
			if err != nil && !hasPath(problemsOf(t, err), "/transition/comment/body") {
				t.Fatalf("error does not name the body: %v", err)
			}
			if err == nil && ev.Transition.Comment.Body != strings.Repeat(emoji, 4096) && tc.raw {
				t.Fatalf("surrogate pairs not decoded to code points")
			}
		})
	}
}

func TestValidateGoEvents(t *testing.T) {
	base := func() *Event {
		return &Event{
			Repo:       "acme/platform",
			Entity:     Entity{Kind: KindWorkItem, ID: 10042, Key: "PROJ-123", URL: "https://acme.atlassian.net/browse/PROJ-123"},
			Transition: Transition{Kind: Updated},
			Actor:      Actor{ID: "u1", Kind: ActorHuman, Role: "write"},
			State:      State{Labels: []string{}},
			Source:     Source{System: SystemJira, RawType: "issue"},
		}
	}
	tests := []struct {
		name string
		edit func(*Event)
		path string // "" means valid
	}{
		{"valid", func(*Event) {}, ""},
		{"nil labels", func(e *Event) { e.State.Labels = nil }, "/state/labels"},
		{"dot-dot repo", func(e *Event) { e.Repo = "../acme" }, "/repo"},
		{"relative url", func(e *Event) { e.Entity.URL = "browse/PROJ-123" }, "/entity/url"},
		{"label without label_changed", func(e *Event) { e.Transition.Label = &Label{Name: "x", Action: "added"} }, "/transition/label"},
		{"zero id", func(e *Event) { e.Entity.ID = 0 }, "/entity/id"},
		{"empty actor kind", func(e *Event) { e.Actor.Kind = "" }, "/actor/kind"},
		{"comment body of 4097 code points", func(e *Event) {
			e.Transition = Transition{Kind: CommentAdded, Comment: &Comment{Body: strings.Repeat("é", 4097)}}
		}, "/transition/comment/body"},
		{"invalid UTF-8 counts per byte", func(e *Event) {
			e.Transition = Transition{Kind: CommentAdded, Comment: &Comment{Body: strings.Repeat("\xff", 4097)}}
		}, "/transition/comment/body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := base()
			tc.edit(e)
			err := e.Validate()
			if tc.path == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !hasPath(problemsOf(t, err), tc.path) {
				t.Fatalf("want a problem at %s, got %v", tc.path, err)
			}
		})
	}
	var nilEvent *Event
	if err := nilEvent.Validate(); err == nil {
		t.Fatal("Validate of nil event succeeded")
	}
}

func TestValidationErrorRendering(t *testing.T) {
	e := &ValidationError{Problems: []Problem{
		{"/transition/kind", "b"}, {"/entity/id", "a"}, {"/transition/kind", "b"}, {"", "whole"}, {"/entity/id", "0"},
	}}
	want := "whole\n/entity/id: 0\n/entity/id: a\n/transition/kind: b"
	if got := e.Error(); got != want {
		t.Fatalf("Error() =\n%s\nwant\n%s", got, want)
	}
	// Decode reports several problems at once, sorted.
	doc := parse(t, exampleJSON)
	set(t, doc, "/repo", "a/../b")
	set(t, doc, "/actor/role", "boss")
	set(t, doc, "/entity/extra", true)
	_, err := Decode(marshal(t, doc))
	ps := problemsOf(t, err)
	var paths []string
	for _, p := range ps {
		paths = append(paths, p.Path)
	}
	if want := []string{"/actor/role", "/entity/extra", "/repo"}; !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %v, want %v (error %v)", paths, want, err)
	}
	if strings.Contains(err.Error(), "jsonschema") || strings.Contains(err.Error(), "#/") {
		t.Fatalf("error leaks schema internals: %v", err)
	}
}

func TestSchemaEmbedded(t *testing.T) {
	doc := parse(t, string(Schema()))
	if doc["$id"] != SchemaID || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("schema header: %v %v", doc["$id"], doc["$schema"])
	}
	if _, err := compiled(); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeManyProblemsBounded(t *testing.T) {
	doc := parse(t, exampleJSON)
	for i := range 5000 {
		set(t, doc, "/x"+strings.Repeat("y", i%7)+string(rune('a'+i%26))+strings.Repeat("z", i/182), i)
	}
	data := marshal(t, doc)
	_, err := Decode(data)
	ve, ok := err.(*ValidationError)
	if !ok {
		t.Fatalf("err %v", err)
	}
	if len(ve.Problems) != MaxProblems || ve.Omitted == 0 || len(ve.Problems)+ve.Omitted != len(doc)-6 {
		t.Fatalf("problems %d omitted %d, want %d listed of %d", len(ve.Problems), ve.Omitted, MaxProblems, len(doc)-6)
	}
	if !strings.HasSuffix(err.Error(), "more problems") {
		t.Fatalf("rendering lacks the omitted count: ...%s", err.Error()[len(err.Error())-80:])
	}
}
