package plan_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// An authorized poison comment (4000 control characters after the command)
// dispatches on the GitHub emulator, which enforces the 65,535-character
// limit: before inputs were sized it was refused on every cycle.
func TestPoisonCommentDispatches(t *testing.T) {
	const token = "ghs_test"
	s := githubsim.New(githubsim.Options{Token: token, Repos: []githubsim.Repo{{FullName: "acme/platform", DefaultBranch: "main",
		Workflows: []githubsim.Workflow{{File: "fullsend-run.yml", Inputs: plan.Names}}}}})
	u, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := ghadispatch.New(ghadispatch.Options{APIURL: u, Token: token, Repo: "acme/platform", Ref: "main",
		MaxRetries: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ev := &event.Event{Repo: "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-1", URL: "https://acme.atlassian.net/browse/PROJ-1"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: event.CommentOf("/fs-triage " + strings.Repeat("\x01", 4000))},
		Actor:      event.Actor{ID: "u", Kind: event.ActorHuman, Role: "write"},
		State:      event.State{Labels: []string{}},
		Source:     event.Source{System: event.SystemJira, RawType: "comment", RawAction: "created"}}
	r := plan.Run{Harness: "triage", Role: "triage", Event: ev, Key: "triage:acme/platform:jira:work_item:10042",
		WorkItem: plan.WorkItemOf(ev), PollLock: &plan.PollLock{ID: "id", Driver: "jira-poll", Property: "PROJ-1/fullsend.poll.acme.platform.lock"}}
	res := d.Dispatch(context.Background(), []plan.Run{r})
	if len(res) != 1 || res[0].Err != nil {
		t.Fatalf("dispatch failed: %+v", res)
	}
	runs := s.Runs()
	if len(runs) != 1 {
		t.Fatalf("%d runs on the emulator, want 1", len(runs))
	}
	got, err := event.Decode([]byte(runs[0].Inputs[plan.InNormalizedEvent]))
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Transition.Comment; !c.Truncated || c.OriginalLength != 4011 || c.Command != "/fs-triage" {
		t.Errorf("dispatched comment: truncated %v original_length %d command %q", c.Truncated, c.OriginalLength, c.Command)
	}
}
