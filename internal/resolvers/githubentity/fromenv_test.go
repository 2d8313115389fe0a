package githubentity

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
)

func TestFromEnv(t *testing.T) {
	f := newFixture(t)
	n := f.openIssue(t)
	cfg := &config.Config{Authorization: config.Authorization{BotAccounts: []string{"Mara"}}}
	tests := []struct {
		name string
		env  map[string]string
		want string // error text; empty: resolves
	}{
		{"no token", map[string]string{"GITHUB_API_URL": f.base}, ErrNoToken.Error()},
		{"plain http elsewhere than loopback", map[string]string{"GITHUB_API_URL": "http://example.com/", "GH_TOKEN": token}, "https"},
		{"the job's repository, a target elsewhere", map[string]string{"GITHUB_API_URL": f.base, "GH_TOKEN": token,
			"GITHUB_REPOSITORY": repo}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := FromEnv(cfg, func(k string) string { return tt.env[k] })
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("FromEnv: %v, want an error with %q", err, tt.want)
				}
				if tt.want == ErrNoToken.Error() && !errors.Is(err, ErrNoToken) {
					t.Errorf("%v is not ErrNoToken", err)
				}
				return
			}
			must(t, err)
			defer r.c.Client().CloseIdleConnections()
			e, err := r.Resolve(context.Background(), entity.Ref{System: "github", Repo: "acme/agents", Kind: entity.KindWorkItem, ID: int64(n)})
			must(t, err)
			if e.Repo != "acme/agents" || e.URL != "https://github.com/acme/platform/issues/1" {
				t.Errorf("repo %s url %s: want the target acme/agents and the issue of acme/platform", e.Repo, e.URL)
			}
			own, err := r.ownSet(context.Background())
			must(t, err)
			if !own["mara"] || !own["fullsend-bot"] || len(own) != 2 {
				t.Errorf("own accounts %v, want the configured mara and the token's fullsend-bot", own)
			}
		})
	}
}

// A pull request's and an issue's status follow their lifecycle.
func TestResolveStatus(t *testing.T) {
	f := newFixture(t)
	issue := f.openIssue(t)
	pull, _ := f.openPull(t)
	f.step()
	_, err := f.sim.SetIssueState(repo, issue, "mara", false)
	must(t, err)
	must(t, f.sim.MergePull(repo, pull, "mara"))
	r := f.resolver(t)
	for _, tt := range []struct {
		kind             string
		n                int
		status, category string
		merged           bool
	}{
		{entity.KindWorkItem, issue, "closed", entity.StatusDone, false},
		{entity.KindChangeProposal, pull, "merged", entity.StatusDone, true},
	} {
		e, err := r.Resolve(context.Background(), entity.Ref{System: "github", Repo: repo, Kind: tt.kind, ID: int64(tt.n)})
		must(t, err)
		st := e.State
		if st.Status != tt.status || st.StatusCategory != tt.category || st.Closed.IsZero() || st.Merged.IsZero() == tt.merged {
			t.Errorf("%s #%d: status %s/%s closed %v merged %v; want %s/%s, closed, merged %v", tt.kind, tt.n,
				st.Status, st.StatusCategory, st.Closed, st.Merged, tt.status, tt.category, tt.merged)
		}
	}
}
