package ghaevent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// fakeLookup answers from maps; a missing login or pull request is an
// error, like a 404 from GitHub.
type fakeLookup struct {
	roles map[string]string
	pulls map[int]*gogithub.PullRequest
	calls int
}

func (f *fakeLookup) Permission(_ context.Context, owner, repo, login string) (string, error) {
	f.calls++
	if owner+"/"+repo != "acme/platform" {
		return "", errors.New("wrong repository " + owner + "/" + repo)
	}
	r, ok := f.roles[login]
	if !ok {
		return "", errors.New("GET .../collaborators/" + login + "/permission: 404 Not Found")
	}
	return r, nil
}

func (f *fakeLookup) PullRequest(_ context.Context, _, _ string, n int) (*gogithub.PullRequest, error) {
	if pr, ok := f.pulls[n]; ok {
		return pr, nil
	}
	return nil, errors.New("404 Not Found")
}

func newFake() *fakeLookup {
	same := &gogithub.Repository{FullName: gogithub.Ptr("acme/platform")}
	return &fakeLookup{
		roles: map[string]string{"alice": "write", "mara": "maintain", "renovate-helper": "write"},
		pulls: map[int]*gogithub.PullRequest{42: {
			Number: gogithub.Ptr(42), User: &gogithub.User{Login: gogithub.Ptr("bob-outside")},
			Head: &gogithub.PullRequestBranch{Ref: gogithub.Ptr("fix/importer-owner"), SHA: gogithub.Ptr("9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"), Repo: same},
			Base: &gogithub.PullRequestBranch{Ref: gogithub.Ptr("main"), Repo: same},
		}},
	}
}

// eventNameOf derives the event name from a testdata file name:
// "<event>.<variant>.json".
func eventNameOf(path string) string {
	name, _, _ := strings.Cut(filepath.Base(path), ".")
	return name
}

func readEvent(t *testing.T, path string, lk *fakeLookup, logs *bytes.Buffer) (*event.Event, error) {
	t.Helper()
	d, err := New(Options{EventName: eventNameOf(path), Path: path, Permissions: lk, Pulls: lk,
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return d.Read(context.Background())
}

func TestGolden(t *testing.T) {
	payloads, _ := filepath.Glob("testdata/*.json")
	n := 0
	for _, p := range payloads {
		if strings.HasSuffix(p, ".golden.json") {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(p), ".json"), func(t *testing.T) {
			var logs bytes.Buffer
			ev, err := readEvent(t, p, newFake(), &logs)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			got, _ := json.MarshalIndent(ev, "", "  ")
			got = append(got, '\n')
			golden := strings.TrimSuffix(p, ".json") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("missing golden file (run go test -update): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("mapped event differs from %s:\n got %s\nwant %s", golden, got, want)
			}
			// The golden document itself must be a valid NormalizedEvent.
			if _, err := event.Decode(want); err != nil {
				t.Errorf("golden %s is not a valid event: %v", golden, err)
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d payloads found", n)
	}
}

// TestPRCommentSharesScopeWithPR checks that a comment on a pull request
// and the pull request's own events serialize on the same scope key.
func TestPRCommentSharesScopeWithPR(t *testing.T) {
	var logs bytes.Buffer
	key := func(file string) scope.Key {
		ev, err := readEvent(t, "testdata/"+file, newFake(), &logs)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		return scope.KeyOf("code", ev, "github")
	}
	want := scope.Key("code:acme/platform:github:change_proposal:42")
	for _, f := range []string{"issue_comment.created-pr.json", "pull_request.opened.json", "pull_request.synchronize.json",
		"pull_request_review.submitted.json", "pull_request.closed-merged.json"} {
		if got := key(f); got != want {
			t.Errorf("%s: key %s, want %s", f, got, want)
		}
	}
	if got := key("issue_comment.created.json"); got != "code:acme/platform:github:work_item:41" {
		t.Errorf("issue comment key = %s", got)
	}
}
