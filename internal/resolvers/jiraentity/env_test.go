package jiraentity_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/resolvers/jiraentity"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func jiraPoll(base, project string) config.InputDriver {
	return config.InputDriver{Type: "jira-poll", Project: project, Queries: []string{"project = PROJ"},
		Connection: config.Connection{BaseURL: base, EmailEnv: "JIRA_USER_EMAIL", TokenEnv: "JIRA_TOKEN"}}
}

// TestFromEnv: the resolver reads through the jira-poll entry's
// connection; no entry, entries on two sites or no token are
// config.Invalid, each naming what is wrong.
func TestFromEnv(t *testing.T) {
	w := newWorld(t, jirasim.Options{})
	key := w.checkoutIssue()
	base := w.base
	env := func(k string) string { return map[string]string{"JIRA_TOKEN": "tok"}[k] }
	cases := []struct {
		name   string
		inputs []config.InputDriver
		getenv func(string) string
		want   string // "" resolves
	}{
		{"one entry", []config.InputDriver{{Type: "gitlab-poll"}, jiraPoll(base, "PROJ")}, env, ""},
		{"two entries, one site", []config.InputDriver{jiraPoll(base, "PROJ"), jiraPoll(base, "OTHER")}, env, ""},
		{"none", []config.InputDriver{{Type: "gitlab-poll"}}, env, "has no jira-poll entry"},
		{"two sites", []config.InputDriver{jiraPoll(base, "PROJ"), jiraPoll("https://other.atlassian.net", "PROJ")}, env, "two Jira sites"},
		{"no token", []config.InputDriver{jiraPoll(base, "PROJ")}, func(string) string { return "" }, "$JIRA_TOKEN is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{File: ".fullsend/config.yaml", Repo: repo, Poll: config.Poll{InputDrivers: tc.inputs}}
			r, err := jiraentity.FromEnv(cfg, tc.getenv)
			if tc.want != "" {
				if !config.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want config.Invalid saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e, err := r.Resolve(context.Background(), w.ref(t, key))
			if err != nil {
				t.Fatal(err)
			}
			if e.Repo != repo || !strings.HasPrefix(e.URL, base+"/browse/") || e.Activity[0].Actor.Role != "write" {
				t.Errorf("entity %s %s, first actor %+v", e.Repo, e.URL, e.Activity[0].Actor)
			}
		})
	}
}
