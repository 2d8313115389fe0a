package scope

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func mk(system, kind string, id int64, key string, linked int64) *event.Event {
	e := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: kind, ID: id, Key: key}, Source: event.Source{System: system}}
	if linked > 0 {
		e.Entity.LinkedChangeProposal = &event.LinkedChangeProposal{ID: linked}
	}
	return e
}

func TestKeyOf(t *testing.T) {
	cases := []struct {
		name  string
		ev    *event.Event
		forge string
		want  Key
	}{
		{"jira work item", mk("jira", "work_item", 10042, "PROJ-123", 0), "github", "triage:acme/platform:jira:work_item:10042"},
		{"github issue", mk("github", "work_item", 7, "", 0), "", "triage:acme/platform:github:work_item:7"},
		{"manual about github issue shares scope", mk("manual", "work_item", 7, "", 0), "github", "triage:acme/platform:github:work_item:7"},
		{"schedule about github issue shares scope", mk("schedule", "work_item", 7, "", 0), "", "triage:acme/platform:github:work_item:7"},
		{"manual about jira issue", mk("manual", "work_item", 7, "PROJ-7", 0), "github", "triage:acme/platform:jira:work_item:7"},
		{"pr comment is the pr", mk("github", "work_item", 12, "", 34), "github", "triage:acme/platform:github:change_proposal:34"},
		{"pr itself", mk("github", "change_proposal", 34, "", 0), "github", "triage:acme/platform:github:change_proposal:34"},
		{"gitlab forge", mk("gitlab", "change_proposal", 5, "", 0), "gitlab", "triage:acme/platform:gitlab:change_proposal:5"},
		{"manual on gitlab forge", mk("manual", "change_proposal", 5, "", 0), "gitlab", "triage:acme/platform:gitlab:change_proposal:5"},
		{"conversation", mk("github", "conversation", 9, "", 0), "github", "triage:acme/platform:github:conversation:9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := KeyOf("triage", c.ev, c.forge); got != c.want {
				t.Fatalf("KeyOf = %s, want %s", got, c.want)
			}
		})
	}
	if KeyOf("t", mk("jira", "work_item", 7, "P-7", 0), "github") == KeyOf("t", mk("github", "work_item", 7, "", 0), "github") {
		t.Fatal("equal numeric ids from Jira and GitHub share a scope")
	}
}

func TestParseRoundTrip(t *testing.T) {
	k := Make("triage", "group/sub/project", Subject{"gitlab", "change_proposal", 42})
	h, repo, s, err := Parse(k)
	if err != nil || h != "triage" || repo != "group/sub/project" || s != (Subject{"gitlab", "change_proposal", 42}) {
		t.Fatalf("Parse = %q %q %+v %v", h, repo, s, err)
	}
	for _, bad := range []Key{"a:b:c", "a:b:c:d:x", "a:b:c:d:0", "a:b:c:d:e:1"} {
		if _, _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestResourceName(t *testing.T) {
	a := ResourceName("triage:acme/platform:jira:work_item:10042")
	if a != "triage_acme--platform_jira_work_item_10042" {
		t.Fatalf("ResourceName = %q", a)
	}
	long := Key("h:" + strings.Repeat("a/", 200) + "b:github:work_item:1")
	r := ResourceName(long)
	if len(r) > 255 {
		t.Fatalf("len = %d", len(r))
	}
	if r == ResourceName(Key(string(long)+"2")) {
		t.Fatal("long keys collide")
	}
	for _, c := range r {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_.-", c)) {
			t.Fatalf("unsafe char %q in %q", c, r)
		}
	}
}
