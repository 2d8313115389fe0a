package githubsim

import (
	"context"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
)

// TestSecondResolution: every time the emulator serves is a whole second,
// as GitHub's: changes made during one second (the clock advanced by
// less) share created_at and differ by id, and a workflow run dispatched
// in that second is listed by a `created` filter naming the second.
func TestSecondResolution(t *testing.T) {
	s, u, clk := startClocked(t)
	c, ctx := client(t, u), context.Background()
	clk.Advance(250 * time.Millisecond)
	n := must(s.OpenIssue(repo, IssueSpec{Title: "t", Author: "alice", PullRequest: true}))
	clk.Advance(250 * time.Millisecond)
	first := must(s.AddComment(repo, n, "mara", "one"))
	clk.Advance(250 * time.Millisecond)
	second := must(s.AddComment(repo, n, "mara", "two"))
	if _, err := s.SetLabel(repo, n, "mara", "bug", true); err != nil {
		t.Fatal(err)
	}
	must(s.SubmitReview(repo, n, "mara", "APPROVED", "ok"))
	if _, _, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "platform", "run.yml",
		gogithub.CreateWorkflowDispatchEventRequest{Ref: "trunk", Inputs: map[string]any{"agent": "triage"}}); err != nil {
		t.Fatal(err)
	}
	second0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if second <= first {
		t.Fatalf("comment ids %d then %d: want increasing", first, second)
	}
	comments, _, err := c.Issues.ListComments(ctx, "acme", "platform", n, nil)
	if err != nil || len(comments) != 2 {
		t.Fatalf("comments = %v, %v", comments, err)
	}
	events, _, err := c.Issues.ListIssueEvents(ctx, "acme", "platform", n, nil)
	if err != nil || len(events) == 0 {
		t.Fatalf("events = %v, %v", events, err)
	}
	reviews, _, err := c.PullRequests.ListReviews(ctx, "acme", "platform", n, nil)
	if err != nil || len(reviews) != 1 {
		t.Fatalf("reviews = %v, %v", reviews, err)
	}
	issue, _, err := c.Issues.Get(ctx, "acme", "platform", n)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(400 * time.Millisecond) // the next second: the run's update is stamped with it
	runs, _, err := c.Actions.ListWorkflowRunsByFileName(ctx, "acme", "platform", "run.yml",
		&gogithub.ListWorkflowRunsOptions{Created: ">=" + second0.Format(time.RFC3339)})
	if err != nil || len(runs.WorkflowRuns) != 1 {
		t.Fatalf("runs created since %s = %v, %v", second0, runs, err)
	}
	if err := s.SetRunStatus(runs.WorkflowRuns[0].GetID(), StatusInProgress, ""); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Run(runs.WorkflowRuns[0].GetID())
	times := map[string]time.Time{
		"issue created_at": issue.GetCreatedAt().Time, "issue updated_at": issue.GetUpdatedAt().Time,
		"first comment": comments[0].GetCreatedAt().Time, "second comment": comments[1].GetCreatedAt().Time,
		"label event": events[len(events)-1].GetCreatedAt().Time, "review": reviews[0].GetSubmittedAt().Time,
		"run created_at": runs.WorkflowRuns[0].GetCreatedAt().Time, "run updated_at": runs.WorkflowRuns[0].GetUpdatedAt().Time,
		"stored run created_at": r.CreatedAt,
	}
	for what, at := range times {
		if !at.Equal(second0) {
			t.Errorf("%s = %s, want %s (the second every change was made in)", what, at.Format(time.RFC3339Nano), second0)
		}
	}
	if !r.UpdatedAt.Equal(second0.Add(time.Second)) {
		t.Errorf("stored run updated_at = %s, want the whole second %s", r.UpdatedAt.Format(time.RFC3339Nano), second0.Add(time.Second))
	}
}
