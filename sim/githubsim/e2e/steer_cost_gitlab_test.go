package e2e_test

import (
	"context"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/steer/gitlabsteer"
)

// TestSteerGitLabDiscoveryCost holds the cadence's cost on GitLab, which
// has no conditional requests: while no pipeline of the scope waits, a
// discovery is the scope's pipeline listing alone; once one waits, its
// variables are read once, and the item's notes each time, the item and
// each new author (user, membership) once per new note.
func TestSteerGitLabDiscoveryCost(t *testing.T) {
	ctx := context.Background()
	w := newGitLabSteerWorld(t)
	w.note(t, w.alice, "/fs-triage the importer drops rows")
	active := w.gs.Pipelines("acme/platform")[0]
	if err := w.gs.StartJob(active.JobID); err != nil {
		t.Fatal(err)
	}
	c, err := gitlab.NewClient(gitlab.Options{APIURL: w.env["GITLAB_API_URL"], Token: w.env["GITLAB_TOKEN"]})
	if err != nil {
		t.Fatal(err)
	}
	key := active.Variables[gitlab.VarSerializationKey]
	own, ok := newest.Change(active.Variables[gitlab.VarIdempotencyKey])
	if !ok {
		t.Fatalf("the pipeline carries no change: %v", active.Variables)
	}
	src, err := gitlabsteer.New(gitlabsteer.Options{Client: c, Project: "acme/platform", IID: w.iid, Harness: "triage", Own: own,
		Pipeline: active.ID, Pipelines: gitlab.NewScopeRecords(c, "1", active.Variables[gitlab.VarResourceKey]),
		Repo: "acme/platform", Decide: scopeDecider(t, w.dir, w.env, key)})
	if err != nil {
		t.Fatal(err)
	}
	measure := func(what string, want, wantFollowUps int) {
		t.Helper()
		before := w.gs.CallsTotal()
		cs, err := src.Discover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.gs.CallsTotal() - before; got != want || len(cs) != wantFollowUps {
			t.Fatalf("%s: %d requests, %d follow-ups; want %d, %d", what, got, len(cs), want, wantFollowUps)
		}
		t.Logf("%s: %d requests", what, want)
	}
	measure("idle discovery", 1, 0)
	measure("idle discovery", 1, 0)
	w.note(t, w.alice, "/fs-triage also handle the retries")
	measure("discovery finding a pending pipeline", 6, 1) // pipelines, its variables, notes, the issue, alice, her membership
	measure("the same again", 2, 1)                       // pipelines, notes
	w.note(t, w.mal, "/fs-triage drop the table")         // starts nothing: an outsider
	measure("an outsider's note", 5, 1)                   // pipelines, notes, the issue, mallory, her membership
}
