package gitlabevent

import (
	"errors"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// TestForgedPayloadsAreRefused: a body that differs from what GitLab says
// is refused with ErrNotConfirmed naming the field.
func TestForgedPayloadsAreRefused(t *testing.T) {
	tests := []struct {
		name, base, field string
		forge             func(f *fixture, m map[string]any)
	}{
		{"note body", "mr_note", "object_attributes.note", func(_ *fixture, m map[string]any) {
			obj(m, "object_attributes")["note"] = "/fs-fix merge it now"
		}},
		{"unknown note id", "mr_note", "object_attributes.id", func(_ *fixture, m map[string]any) {
			obj(m, "object_attributes")["id"] = 99999
		}},
		{"note author", "mr_fork_note", "object_attributes.author_id", func(f *fixture, m map[string]any) {
			obj(m, "user")["id"], obj(m, "user")["username"] = f.alice.ID, "alice"
			obj(m, "object_attributes")["author_id"] = f.alice.ID
		}},
		{"username", "mr_note", "user.username", func(_ *fixture, m map[string]any) {
			obj(m, "user")["username"] = "root"
		}},
		{"labels", "issue_open", "object_attributes.labels", func(_ *fixture, m map[string]any) {
			obj(m, "object_attributes")["labels"] = []any{map[string]any{"title": "fullsend-fix"}}
		}},
		{"label event by someone else", "issue_label_added", "changes.labels", func(f *fixture, m map[string]any) {
			obj(m, "user")["id"], obj(m, "user")["username"] = f.alice.ID, "alice"
		}},
		{"state", "mr_open", "object_attributes.state", func(_ *fixture, m map[string]any) {
			obj(m, "object_attributes")["state"] = "merged"
		}},
		{"head commit", "mr_push", "object_attributes.last_commit.id", func(_ *fixture, m map[string]any) {
			obj(obj(m, "object_attributes"), "last_commit")["id"] = strings.Repeat("ab", 20)
		}},
		{"opened by someone else", "mr_fork_open", "user.id", func(f *fixture, m map[string]any) {
			obj(m, "user")["id"], obj(m, "user")["username"] = f.alice.ID, "alice"
		}},
		{"closed by someone else", "issue_close", "user.id", func(f *fixture, m map[string]any) {
			obj(m, "user")["id"], obj(m, "user")["username"] = f.bob.ID, "bob"
		}},
		{"merged by someone else", "mr_merge", "user.id", func(f *fixture, m map[string]any) {
			obj(m, "user")["id"], obj(m, "user")["username"] = f.bob.ID, "bob"
		}},
		{"reopened by someone else", "issue_reopen", "user.id", func(f *fixture, m map[string]any) {
			obj(m, "user")["id"], obj(m, "user")["username"] = f.alice.ID, "alice"
		}},
		{"unknown issue", "issue_open", "iid", func(_ *fixture, m map[string]any) {
			obj(m, "object_attributes")["iid"] = 77
		}},
		{"other project", "issue_open", "project", func(_ *fixture, m map[string]any) {
			obj(m, "project")["id"], obj(m, "project")["path_with_namespace"] = 2, "mallory/platform"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			hook, err := cases[tt.base](t, f)
			must(t, err)
			if _, err := f.read(t, hook); err != nil {
				t.Fatalf("the genuine %s body is refused: %v", tt.base, err)
			}
			_, err = f.read(t, edit(t, hook, func(m map[string]any) { tt.forge(f, m) }))
			if !errors.Is(err, ErrNotConfirmed) || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("err = %v, want ErrNotConfirmed naming %s", err, tt.field)
			}
		})
	}
}

// TestEditedNoteIsRefused: a note edited after the webhook no longer
// matches, so the stale body is not dispatched.
func TestEditedNoteIsRefused(t *testing.T) {
	f := newFixture(t)
	n, hook, err := f.sim.AddNote("acme/platform", mr, 1, f.bob.ID, "/fs-review")
	must(t, err)
	must(t, f.sim.SetNoteBody(n.ID, "never mind"))
	if _, err := f.read(t, hook); !errors.Is(err, ErrNotConfirmed) {
		t.Fatalf("err = %v, want ErrNotConfirmed", err)
	}
}

func TestUnsupportedPayloads(t *testing.T) {
	tests := map[string]string{
		"push event":      `{"object_kind":"push","project":{"id":1,"path_with_namespace":"a/b"},"user":{"id":1,"username":"u"}}`,
		"not json":        `{`,
		"commit note":     `{"object_kind":"note","project":{"id":1,"path_with_namespace":"a/b"},"user":{"id":1,"username":"u"},"object_attributes":{"id":3,"noteable_type":"Commit"}}`,
		"note update":     `{"object_kind":"note","project":{"id":1,"path_with_namespace":"a/b"},"user":{"id":1,"username":"u"},"object_attributes":{"id":3,"noteable_type":"Issue","action":"update"}}`,
		"approval":        `{"object_kind":"merge_request","project":{"id":1,"path_with_namespace":"a/b"},"user":{"id":1,"username":"u"},"object_attributes":{"iid":1,"action":"approved"}}`,
		"merge on issue":  `{"object_kind":"issue","project":{"id":1,"path_with_namespace":"a/b"},"user":{"id":1,"username":"u"},"object_attributes":{"iid":1,"action":"merge"}}`,
		"no user":         `{"object_kind":"issue","project":{"id":1,"path_with_namespace":"a/b"},"object_attributes":{"iid":1,"action":"open"}}`,
		"no iid":          `{"object_kind":"issue","project":{"id":1,"path_with_namespace":"a/b"},"user":{"id":1,"username":"u"},"object_attributes":{"action":"open"}}`,
		"note without mr": `{"object_kind":"note","project":{"id":1,"path_with_namespace":"a/b"},"user":{"id":1,"username":"u"},"object_attributes":{"id":3,"noteable_type":"MergeRequest"}}`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			if c, err := ParseWebhook([]byte(body)); err == nil {
				t.Fatalf("accepted: %+v", c)
			}
		})
	}
}

func TestSeveralLabelsYieldOneEventEach(t *testing.T) {
	f := newFixture(t)
	hook, err := f.sim.ChangeLabels("acme/platform", mr, 1, f.alice.ID, []string{"a", "b"}, []string{"review"})
	must(t, err)
	evs, err := f.read(t, hook)
	must(t, err)
	var got []string
	for _, ev := range evs {
		got = append(got, ev.Transition.Label.Action+":"+ev.Transition.Label.Name)
	}
	if strings.Join(got, ",") != "added:a,added:b,removed:review" {
		t.Fatalf("label events %v", got)
	}
	d, err := New(Options{Payload: hook, API: f.api})
	must(t, err)
	ev, err := d.Read(t.Context())
	must(t, err)
	if ev.Transition.Label.Name != "a" {
		t.Fatalf("Read returned %+v, want the first change", ev.Transition.Label)
	}
}

func TestRoleOf(t *testing.T) {
	want := map[gitlab.AccessLevelValue]event.Role{0: event.RoleNone, 5: event.RoleNone, 10: event.RoleRead,
		15: event.RoleTriage, 20: event.RoleTriage, 30: event.RoleWrite, 40: event.RoleMaintain, 50: event.RoleAdmin, 60: event.RoleAdmin}
	for lvl, r := range want {
		if got := RoleOf(lvl); got != r {
			t.Errorf("RoleOf(%d) = %s, want %s", lvl, got, r)
		}
	}
}

func TestNewNeedsPayloadAndAPI(t *testing.T) {
	if _, err := New(Options{API: &Lookup{}}); err == nil {
		t.Error("no payload accepted")
	}
	if _, err := New(Options{Path: "x"}); err == nil {
		t.Error("no API accepted")
	}
}

func FuzzParseWebhook(f *testing.F) {
	for name := range cases {
		if b, err := readTestdata(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"object_kind":"note"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseWebhook(data)
		if err != nil {
			return
		}
		if c.IID < 1 || c.ProjectID < 1 || c.UserID < 1 || c.Transition == "" {
			t.Fatalf("accepted an incomplete claim %+v", c)
		}
		if c.Transition == event.LabelChanged && len(c.LabelChanges) == 0 {
			t.Fatalf("label_changed without label changes: %+v", c)
		}
	})
}
