package e2e_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/github"
)

// TestSteerGitHubDiscoveryCost holds the cadence's cost on GitHub: while
// no run of the scope waits, a discovery is one conditional listing of
// the run workflow's runs, a 304 (free on GitHub's rate limit) once
// nothing changed; once one waits, the comments and the item are read
// (conditionally) and each new comment's author looked up once.
func TestSteerGitHubDiscoveryCost(t *testing.T) {
	ctx := context.Background()
	w := newSteerWorld(t, 1, "{enabled: true}")
	w.comment(t, "alice", "/fs-triage the importer drops rows")
	active := w.runs()[0].ID
	if err := w.gs.StartRun(active); err != nil {
		t.Fatal(err)
	}
	c, err := github.NewClient(w.env["GITHUB_API_URL"], steerToken, github.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, _ := crashSource(t, w, c, fmt.Sprintf("triage:%s:github:work_item:%d", steerRepo, w.issue), active)
	measure := func(what string, wantReq, want304 int) {
		t.Helper()
		r, nm := w.gs.Requests(), w.gs.NotModified()
		if _, err := src.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		if dr, dn := w.gs.Requests()-r, w.gs.NotModified()-nm; dr != wantReq || dn != want304 {
			t.Fatalf("%s: %d requests (%d answered 304), want %d (%d)", what, dr, dn, wantReq, want304)
		}
		t.Logf("%s: %d requests, %d of them 304", what, wantReq, want304)
	}
	measure("first idle discovery", 1, 0)
	measure("idle discovery", 1, 1)
	measure("idle discovery", 1, 1)
	w.comment(t, "alice", "/fs-triage also handle the retries")
	measure("discovery finding a pending run", 4, 0) // runs, comments, issue, alice's permission
	measure("the same again", 2, 2)                  // runs and comments unchanged: 304s
}
