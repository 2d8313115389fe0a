package jirasim

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/jira"
)

// TestOwnerPropertiesAgainstOpenAPI: the user and project property
// endpoints answer, and the client asks, as Atlassian's description says,
// refusals included.
func TestOwnerPropertiesAgainstOpenAPI(t *testing.T) {
	doc := loadSpec(t)
	s := New(Options{})
	v := &validator{t: t, doc: doc, inner: s.Handler(), seen: map[string]bool{}, requests: true}
	srv := httptest.NewServer(v)
	defer srv.Close()
	s.AddProject("PROJ", "Project")
	s.AddUser(jiraUser("dev1", "Dev One"))
	me := "557058:fullsend-bot"
	calls := []rawCall{
		{"GET", "/rest/api/3/user/properties/k?accountId=" + me, ""},
		{"PUT", "/rest/api/3/user/properties/k?accountId=" + me, `{"at":"2024-05-02T10:11:12Z"}`},
		{"PUT", "/rest/api/3/user/properties/k?accountId=" + me, `{"at":"2024-05-02T10:11:13Z"}`},
		{"GET", "/rest/api/3/user/properties/k?accountId=" + me, ""},
		{"GET", "/rest/api/3/user/properties/k?accountId=dev1", ""},
		{"PUT", "/rest/api/3/user/properties/k?accountId=" + me, `"` + strings.Repeat("x", 40000) + `"`},
		{"GET", "/rest/api/3/project/PROJ/properties/k", ""},
		{"PUT", "/rest/api/3/project/PROJ/properties/k", `{"at":"x"}`},
		{"GET", "/rest/api/3/project/NOPE/properties/k", ""},
	}
	sendAll(t, srv.URL, calls)
	s.SetPropertyAccess(OwnerProject, true, true)
	c, err := jira.New(jira.Options{BaseURL: srv.URL, Email: "e@example.com", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, o := range []jira.Owner{{Kind: jira.OwnerUser, ID: me}, {Kind: jira.OwnerProject, ID: "PROJ"}} {
		if err := c.SetOwnerProperty(ctx, o, "fullsend.poll.a.b.cursor", map[string]string{"at": "x"}); err != nil {
			t.Errorf("set on %s: %v", o, err)
		}
		if _, found, err := c.GetOwnerProperty(ctx, o, "fullsend.poll.a.b.cursor"); err != nil || !found {
			t.Errorf("get on %s: %v (found %v)", o, err, found)
		}
	}
	for _, want := range []string{
		"GET /rest/api/3/user/properties/{propertyKey} 404", "GET /rest/api/3/user/properties/{propertyKey} 200",
		"GET /rest/api/3/user/properties/{propertyKey} 403",
		"PUT /rest/api/3/user/properties/{propertyKey} 201", "PUT /rest/api/3/user/properties/{propertyKey} 200",
		"PUT /rest/api/3/user/properties/{propertyKey} 400",
		"GET /rest/api/3/project/{projectIdOrKey}/properties/{propertyKey} 404",
		"PUT /rest/api/3/project/{projectIdOrKey}/properties/{propertyKey} 403",
		"PUT /rest/api/3/project/{projectIdOrKey}/properties/{propertyKey} 201",
		"GET /rest/api/3/project/{projectIdOrKey}/properties/{propertyKey} 200",
	} {
		if !v.seen[want] {
			t.Errorf("not exercised: %s", want)
		}
	}
}

// rawCall is one HTTP request a contract test sends as is.
type rawCall struct{ method, path, body string }

// sendAll sends calls to base with a Bearer credential, in order.
func sendAll(t *testing.T, base string, calls []rawCall) {
	t.Helper()
	for _, c := range calls {
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer t")
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
}
