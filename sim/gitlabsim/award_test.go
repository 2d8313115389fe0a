package gitlabsim

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// The award emoji shapes of GitLab's documentation, added to the one table.
func init() {
	award := f("id int", "name string", "user object", "created_at time", "updated_at time", "awardable_id int",
		"awardable_type string")
	for _, e := range []string{"issue", "merge_request", "issue_note", "merge_request_note"} {
		gitlabShapes["list_"+e+"_emoji"] = struct {
			list, paged bool
			fields      map[string]string
		}{list: true, paged: true, fields: award}
		gitlabShapes["award_"+e+"_emoji"] = struct {
			list, paged bool
			fields      map[string]string
		}{fields: award}
	}
	for _, e := range []string{"create_issue_note", "create_merge_request_note"} {
		gitlabShapes[e] = gitlabShapes["get_issue_note"]
	}
}

// awardCases are the contract cases of the award emoji routes on the
// world TestContractAgainstDocumentation builds.
func awardCases(p, i, m string, notes map[string]int64) []contractCase {
	in := "/issues/" + i + "/notes/" + strconv.FormatInt(notes[NoteableIssue], 10)
	mn := "/merge_requests/" + m + "/notes/" + strconv.FormatInt(notes[NoteableMergeRequest], 10)
	return []contractCase{
		{"POST", p + in + "/award_emoji", `{"name":"eyes"}`, 201},
		{"POST", p + in + "/award_emoji", `{"name":"eyes"}`, 404},
		{"POST", p + in + "/award_emoji", `{}`, 400},
		{"GET", p + in + "/award_emoji", "", 200},
		{"POST", p + mn + "/award_emoji", `{"name":"eyes"}`, 201},
		{"GET", p + mn + "/award_emoji?per_page=1", "", 200},
		{"GET", p + "/issues/" + i + "/notes/99/award_emoji", "", 404},
		{"POST", p + "/issues/" + i + "/award_emoji", `name=confused`, 201},
		{"GET", p + "/issues/" + i + "/award_emoji", "", 200},
		{"POST", p + "/merge_requests/" + m + "/award_emoji", `{"name":"eyes"}`, 201},
		{"GET", p + "/merge_requests/" + m + "/award_emoji", "", 200},
		{"POST", p + "/merge_requests/99/award_emoji", `{"name":"eyes"}`, 404},
		{"POST", p + "/issues/" + i + "/notes", `{"body":"set aside"}`, 201},
		{"POST", p + "/merge_requests/" + m + "/notes", `body=set+aside`, 201},
		{"POST", p + "/issues/" + i + "/notes", `{}`, 400},
		{"POST", p + "/issues/99/notes", `{"body":"x"}`, 404},
	}
}

// TestAwardOnceByTokenUser: the token's user awards a name once per
// note; the same award again is GitLab's 404 "already been taken" and adds
// nothing; the note's and the issue's updated_at stay.
func TestAwardOnceByTokenUser(t *testing.T) {
	s := New(Options{})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ada := s.AddUser("ada", false)
	bot := s.AddUser("project_1_bot_x", true)
	s.SetTokenUser(bot.ID)
	is, _, err := s.CreateIssue("acme/platform", ada.ID, "bug", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := s.AddNote("acme/platform", NoteableIssue, is.IID, ada.ID, "/fs-triage")
	if err != nil {
		t.Fatal(err)
	}
	path := srv.URL + "/api/v4/projects/acme%2Fplatform/issues/" + strconv.FormatInt(is.IID, 10) + "/notes/" +
		strconv.FormatInt(n.ID, 10) + "/award_emoji"
	for i, want := range []int{201, 404, 404} {
		req, _ := http.NewRequest("POST", path, strings.NewReader(`{"name":"eyes"}`))
		req.Header.Set("PRIVATE-TOKEN", s.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("award %d: status %d, want %d", i, resp.StatusCode, want)
		}
	}
	got := s.Awards("Note", n.ID)
	if len(got) != 1 || got[0].Name != "eyes" || got[0].UserID != bot.ID {
		t.Errorf("awards %+v, want one eyes by the token's user", got)
	}
}
