package jiraentity_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/resolvers/jiraentity"
)

// answers serves a fuzzed issue answer, and fixed answers for the
// tool's own account and the project's roles (one role, Developers,
// holding "dev").
type answers struct {
	mu    sync.Mutex
	issue []byte
}

func (a *answers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch p := r.URL.Path; {
	case p == "/rest/api/3/myself":
		w.Write([]byte(`{"accountId":"me","accountType":"app"}`))
	case strings.HasSuffix(p, "/role"):
		w.Write([]byte(`{"Developers":"http://127.0.0.1:1/rest/api/3/project/P/role/10001"}`))
	case strings.Contains(p, "/role/"):
		w.Write([]byte(`{"actors":[{"actorUser":{"accountId":"dev"}}]}`))
	case strings.HasSuffix(p, "/comment"):
		w.Write([]byte(`{"comments":[],"total":0,"startAt":0}`))
	case strings.HasSuffix(p, "/changelog"):
		w.Write([]byte(`{"values":[],"total":0,"isLast":true}`))
	default:
		a.mu.Lock()
		body := a.issue
		a.mu.Unlock()
		w.Write(body)
	}
}

// inProcess answers requests with a handler, without a network.
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

var fuzzSeeds = []string{
	`{"id":"10042","key":"PROJ-7","fields":{"summary":"s","labels":["bug"],"created":"2026-11-02T09:00:00.000+0000","updated":"2026-11-03T09:00:00.000+0000",
	  "status":{"name":"In Progress","statusCategory":{"key":"indeterminate"}},"reporter":{"accountId":"dev"},"assignee":{"accountId":"dev"},
	  "description":{"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":"/fs-triage now"}]}]},
	  "resolutiondate":null,
	  "comment":{"comments":[{"id":"1","author":{"accountId":"x"},"body":"plain","created":"2026-11-02T10:00:00.000+0000","updated":"2026-11-02T11:00:00.000+0000","updateAuthor":{"accountId":"dev"}}],"total":1,"startAt":0,"maxResults":1}},
	 "changelog":{"startAt":0,"maxResults":100,"total":1,"histories":[{"id":"5","author":{"accountId":"dev"},"created":"2026-11-02T12:00:00.000+0000","items":[{"field":"labels","fieldId":"labels","fromString":"","toString":"bug a b"}]}]}}`,
	`{"id":"1","key":"A-1","fields":{"created":"2026-11-02T09:00:00Z","updated":"2026-11-02T09:00:00Z","status":{"name":"Done","statusCategory":{"key":"done"}},"resolutiondate":"2026-11-02T09:00:00Z","description":"text","comment":{"comments":[],"total":3}},"changelog":{"histories":[],"total":200}}`,
	`{"id":"0","key":"bad","fields":{"status":{"name":"","statusCategory":{"key":"weird"}},"comment":{}},"changelog":{}}`,
	`{"id":"2","key":"B-2","fields":{"created":"2026-11-02T09:00:00Z","updated":"2026-11-02T09:00:00Z","status":{"name":"x","statusCategory":{"key":"new"}},"description":[1],"comment":{"comments":[{"author":{}}],"total":1}},"changelog":{"histories":[{"items":[{"field":"Labels","toString":"z"}]}]}}`,
	`null`, `[]`, `{}`,
}

// FuzzResolve: whatever Jira answers for the issue, Resolve fails with
// an error or returns a valid entity, newest first, whose JSON decodes.
func FuzzResolve(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	a := &answers{}
	c, err := jira.New(jira.Options{BaseURL: "http://127.0.0.1:1", Token: "t", RPS: 1e6, Burst: 1e6, MaxRetries: -1,
		Timeout: 5 * time.Second, Transport: inProcess{a}})
	if err != nil {
		f.Fatal(err)
	}
	r := jiraentity.New(c, jiraentity.Options{SiteURL: "https://acme.atlassian.net", Repo: "acme/platform", Project: "P"})
	ref := entity.Ref{System: entity.SystemJira, Repo: "acme/platform", Kind: entity.KindWorkItem, ID: 1}
	f.Fuzz(func(t *testing.T, body []byte) {
		a.mu.Lock()
		a.issue = body
		a.mu.Unlock()
		e, err := r.Resolve(context.Background(), ref)
		if err != nil {
			if e != nil {
				t.Fatal("an entity and an error")
			}
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("invalid entity: %v", err)
		}
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := entity.Decode(data); err != nil {
			t.Fatalf("the entity's JSON does not decode: %v\n%s", err, data)
		}
		for _, el := range e.Activity {
			if !el.Actor.Role.Valid() {
				t.Fatalf("element %s %s: role %q", el.Kind, el.ID, el.Actor.Role)
			}
		}
	})
}
