package entity

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// edit applies a textual replacement to a golden (which must match once).
func edit(t *testing.T, name string, pairs ...string) []byte {
	t.Helper()
	s := string(readGolden(t, name))
	for i := 0; i < len(pairs); i += 2 {
		if strings.Count(s, pairs[i]) < 1 {
			t.Fatalf("%s has no %q", name, pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return []byte(s)
}

func TestDecodeRejects(t *testing.T) {
	const jira, pr, gl = "jira-work-item.json", "github-change-proposal.json", "gitlab-work-item.json"
	tests := []struct {
		name  string
		doc   []byte
		wants []string
	}{
		{"unknown field", edit(t, jira, `"version":`, `"colour": 1, "version":`), []string{"/colour: unknown field"}},
		{"unknown system", edit(t, jira, `"system": "jira"`, `"system": "manual"`), []string{`/source/system: must be one of "jira", "github", "gitlab"`}},
		{"conversation kind", edit(t, jira, `"kind": "work_item"`, `"kind": "conversation"`), []string{`/kind: must be one of "work_item", "change_proposal"`}},
		{"jira without key", edit(t, jira, `"key": "PROJ-123",`, ``), []string{"/key: required when source.system is jira"}},
		{"key outside jira", edit(t, gl, `"id": 31,`, `"id": 31, "key": "A-1",`), []string{"/key: allowed only when source.system is jira"}},
		{"cp without cp state", edit(t, pr, `"change_proposal": {`, `"x_change_proposal": {`), []string{"/state/change_proposal: required when kind is change_proposal"}},
		{"cp linked", edit(t, pr, `"repo":`, `"linked_change_proposal": {"id": 1, "url": "https://x/1"}, "repo":`), []string{"/linked_change_proposal: not allowed when kind is change_proposal"}},
		{"work item merged", edit(t, gl, `"closed":`, `"merged": "2026-10-22T16:00:00Z", "closed":`), []string{"/state/merged: allowed only when kind is change_proposal"}},
		{"bad time", edit(t, jira, `"updated": "2026-11-03T14:05:00Z"`, `"updated": "yesterday"`), []string{"/state/updated: must be a valid date-time"}},
		{"null labels", edit(t, jira, `"labels": ["bug", "needs-agent"]`, `"labels": null`), []string{"/state/labels: must be an array, not null"}},
		{"status category", edit(t, jira, `"in_progress"`, `"doing"`), []string{`/state/status_category: must be one of "todo", "in_progress", "done"`}},
		{"label element with body", edit(t, jira, `"label": "needs-agent"`, `"label": "needs-agent", "body": "x"`), []string{"/activity/1/body: not allowed when kind is label"}},
		{"label element without label", edit(t, jira, `"label": "needs-agent"`, `"id2": 1`), []string{"/activity/1/label: required when kind is label", "/activity/1/id2: unknown field"}},
		{"comment without body", edit(t, jira, `"body": "/fs-triage check acceptance criteria", `, ``), []string{"/activity/0/body: required when kind is body, comment or review"}},
		{"review without state", edit(t, pr, `, "review_state": "changes_requested"`, ``), []string{"/activity/1/review_state: required when kind is review"}},
		{"instruction without command", edit(t, jira, `"command": "/fs-triage", `, ``), []string{"/activity/0/command: required when instruction is set"}},
		{"bad command", edit(t, jira, `"command": "/fs-triage"`, `"command": "fs triage"`), []string{"/activity/0/command: must start with '/' and contain no whitespace"}},
		{"body too long", edit(t, jira, `"Steps to reproduce: add 101 items, press checkout."`, `"`+strings.Repeat("é", event.MaxCommentBody+1)+`"`), []string{"/activity/2/body: must be at most 4096 characters long"}},
		{"bot kind", edit(t, jira, `"kind": "human", "role": "write"`, `"kind": "robot", "role": "write"`), []string{`/activity/0/actor/kind: must be one of "human", "bot"`}},
		{"oldest first", edit(t, jira, `"created": "2026-11-03T10:00:00Z"`, `"created": "2026-11-04T10:00:00Z"`), []string{"/activity/1/created: is after /activity/0/created: activity is newest first"}},
		{"repeated element", edit(t, jira, `"kind": "label", "id": "30011"`, `"kind": "comment", "id": "20077", "body": ""`, `"label": "needs-agent"`, `"label_": 1`), []string{"/activity/1/label_: unknown field"}},
		{"bad receipt", edit(t, "github-work-item.json", `"outcome": "succeeded"`, `"outcome": "ok"`, `"attempts": 1`, `"attempts": 0`), []string{`/receipt/outcome: must be one of "succeeded"`, "/receipt/attempts: must be at least 1"}},
		{"relative url", edit(t, jira, `"url": "https://acme.atlassian.net/browse/PROJ-123"`, `"url": "browse/PROJ-123"`), []string{"/url: must be an absolute URI"}},
		{"empty version", edit(t, jira, `"version": "v1:5f1d2c0e9a7b4c3d8e6f0a1b2c3d4e5f"`, `"version": ""`), []string{"/version: must not be empty"}},
		{"fraction id", edit(t, jira, `"id": 10042`, `"id": 10042.5`), []string{"/id: must be an integer"}},
		{"syntax", []byte(`{"source":`), []string{"invalid JSON"}},
		{"empty", nil, []string{"invalid JSON: empty input"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Decode(tc.doc)
			if e != nil {
				t.Fatal("entity returned with an error")
			}
			var verr *event.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("got %v, want a validation error", err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestDuplicateElement(t *testing.T) {
	e := decodeGolden(t, "jira-work-item.json")
	e.Activity[1] = e.Activity[0]
	e.Activity[1].Created = e.Activity[2].Created.Add(1)
	err := e.Validate()
	if err == nil || !strings.Contains(err.Error(), "/activity/1/id: repeats the comment element /activity/0") {
		t.Fatalf("got %v", err)
	}
}

func TestValidateNilAndNullLists(t *testing.T) {
	if err := (*Entity)(nil).Validate(); err == nil {
		t.Fatal("nil entity accepted")
	}
	e := decodeGolden(t, "jira-work-item.json")
	e.State.Assignees, e.Activity = nil, nil
	err := e.Validate()
	for _, w := range []string{"/state/assignees: must be an array", "/activity: must be an array"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
}

func TestReadLimit(t *testing.T) {
	_, err := Read(strings.NewReader(`{"version":"`+strings.Repeat("a", 100)+`"}`), 64)
	if err == nil || !strings.Contains(err.Error(), "entity is larger than 64 bytes") {
		t.Fatalf("got %v", err)
	}
	if _, err := Read(strings.NewReader(string(readGolden(t, "github-work-item.json"))), 0); err != nil {
		t.Fatal(err)
	}
}

// The largest valid entity fits DefaultMaxBytes.
func TestLargestEntityFitsReadLimit(t *testing.T) {
	e := decodeGolden(t, "github-work-item.json")
	e.Activity = nil
	big := strings.Repeat("\u0001", event.MaxCommentBody) // escaped as \u0001: six bytes each
	for i := range MaxActivity {
		el := e2el(i, big)
		e.Activity = append(e.Activity, el)
	}
	e.Activity, _ = Bound(e.Activity)
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(e)
	if len(data) > DefaultMaxBytes {
		t.Fatalf("largest entity is %d bytes, over DefaultMaxBytes %d", len(data), DefaultMaxBytes)
	}
}
