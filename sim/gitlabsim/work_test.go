package gitlabsim

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestWorkEndpoints: issues, merge requests, notes, label events, members
// and users read back what the changes made, and unknown ones are 404.
func TestWorkEndpoints(t *testing.T) {
	s, c := start(t, Options{Projects: []string{"acme/platform", "fork/platform"}})
	alice, tok := s.AddUser("alice", false), s.AddUser("project_1_bot_1a", true)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.SetMember("acme/platform", alice.ID, AccessDeveloper))
	is, _, err := s.CreateIssue("acme/platform", alice.ID, "t", "d", []string{"bug"})
	must(err)
	m, _, err := s.CreateMergeRequest("acme/platform", MergeRequestSpec{SourceProject: "fork/platform", SourceBranch: "x", TargetBranch: "main", AuthorID: alice.ID})
	must(err)
	n, _, err := s.AddNote("acme/platform", NoteableMergeRequest, m.IID, tok.ID, "hello")
	must(err)
	_, err = s.ChangeLabels("acme/platform", NoteableIssue, is.IID, alice.ID, []string{"triage"}, []string{"bug"})
	must(err)

	var issue struct {
		IID    int64    `json:"iid"`
		Labels []string `json:"labels"`
		Author struct{ Username string }
	}
	c.do("GET", "/projects/acme%2Fplatform/issues/1", "", &issue)
	if issue.IID != 1 || len(issue.Labels) != 1 || issue.Labels[0] != "triage" || issue.Author.Username != "alice" {
		t.Fatalf("issue %+v", issue)
	}
	var mr struct {
		SourceProjectID int64  `json:"source_project_id"`
		TargetProjectID int64  `json:"target_project_id"`
		SHA             string `json:"sha"`
	}
	c.do("GET", "/projects/1/merge_requests/1", "", &mr)
	if mr.SourceProjectID != 2 || mr.TargetProjectID != 1 || len(mr.SHA) != 40 {
		t.Fatalf("merge request %+v", mr)
	}
	var note struct {
		Body   string `json:"body"`
		Author struct{ ID int64 }
	}
	c.do("GET", "/projects/1/merge_requests/1/notes/"+itoa(n.ID), "", &note)
	if note.Body != "hello" || note.Author.ID != tok.ID {
		t.Fatalf("note %+v", note)
	}
	var evs []struct {
		Action string
		User   struct{ ID int64 }
		Label  struct{ Name string }
	}
	c.do("GET", "/projects/1/issues/1/resource_label_events", "", &evs)
	if len(evs) != 3 || evs[1].Action != "remove" || evs[1].Label.Name != "bug" || evs[2].Action != "add" || evs[2].User.ID != alice.ID {
		t.Fatalf("label events %+v", evs)
	}
	var member struct {
		AccessLevel int `json:"access_level"`
	}
	c.do("GET", "/projects/1/members/all/"+itoa(alice.ID), "", &member)
	if member.AccessLevel != AccessDeveloper {
		t.Fatalf("member %+v", member)
	}
	var user struct{ Bot bool }
	c.do("GET", "/users/"+itoa(tok.ID), "", &user)
	if !user.Bot {
		t.Fatal("token user is not a bot")
	}
	for _, path := range []string{"/projects/1/issues/9", "/projects/1/merge_requests/9", "/projects/1/issues/1/notes/" + itoa(n.ID),
		"/projects/1/members/all/" + itoa(tok.ID), "/users/999", "/projects/1/merge_requests/9/resource_label_events"} {
		if resp := c.do("GET", path, "", nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestWebhookBodies: each change returns the webhook body in GitLab's
// shape: object_kind, the action, and what the driver decides from.
func TestWebhookBodies(t *testing.T) {
	s, _ := start(t, Options{})
	u := s.AddUser("u", false)
	_, open, _ := s.CreateMergeRequest("acme/platform", MergeRequestSpec{SourceBranch: "b", TargetBranch: "main", AuthorID: u.ID, Labels: []string{"a"}})
	push, _ := s.Push("acme/platform", 1, u.ID, "1111111111111111111111111111111111111111")
	lab, _ := s.ChangeLabels("acme/platform", NoteableMergeRequest, 1, u.ID, []string{"b"}, nil)
	merge, _ := s.SetState("acme/platform", NoteableMergeRequest, 1, u.ID, "merge")
	_, note, _ := s.AddNote("acme/platform", NoteableMergeRequest, 1, u.ID, "hi")
	type body struct {
		ObjectKind string `json:"object_kind"`
		Attrs      struct {
			Action, OldRev, Note, NoteableType string
			State                              string `json:"state"`
		} `json:"object_attributes"`
		Changes struct {
			Labels struct{ Previous, Current []struct{ Title string } }
		}
		MergeRequest *struct{ IID int64 } `json:"merge_request"`
	}
	dec := func(b []byte) body {
		var v body
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := dec(open); v.ObjectKind != "merge_request" || v.Attrs.Action != "open" || v.Attrs.State != "opened" {
		t.Errorf("open %+v", v)
	}
	if v := dec(push); v.Attrs.Action != "update" || v.Attrs.OldRev == "" {
		t.Errorf("push %+v", v)
	}
	if v := dec(lab); len(v.Changes.Labels.Previous) != 1 || len(v.Changes.Labels.Current) != 2 {
		t.Errorf("labels %+v", v)
	}
	if v := dec(merge); v.Attrs.Action != "merge" || v.Attrs.State != "merged" {
		t.Errorf("merge %+v", v)
	}
	if v := dec(note); v.ObjectKind != "note" || v.Attrs.Note != "hi" || v.MergeRequest == nil || v.MergeRequest.IID != 1 {
		t.Errorf("note %+v", v)
	}
	if _, err := s.SetState("acme/platform", NoteableIssue, 1, u.ID, "merge"); err == nil {
		t.Error("merging an issue accepted")
	}
	if _, _, err := s.AddNote("acme/platform", NoteableIssue, 5, u.ID, "x"); err == nil {
		t.Error("note on a missing issue accepted")
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
