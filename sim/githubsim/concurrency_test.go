package githubsim

import (
	"context"
	"testing"

	gogithub "github.com/google/go-github/v90/github"
)

// TestConcurrencyGroup: one run of a group holds it (queued or in
// progress); a run queued then waits as pending; a newer queued run
// cancels the pending one and takes its place; the holder's end hands the
// group on; group names are case-insensitive; a re-run of a cancelled run
// is queued again like a new run.
func TestConcurrencyGroup(t *testing.T) {
	s, u := start(t, Options{})
	must0 := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must0(s.AddWorkflow("acme/platform", Workflow{File: "run.yml",
		Concurrency: func(in map[string]string) string { return "fullsend-run-" + in["serialization_key"] }}))
	c, err := gogithub.NewClient(gogithub.WithAuthToken(tok), gogithub.WithURLs(&u, &u))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Client().CloseIdleConnections()
	ctx := context.Background()
	dispatch := func(key string) int64 {
		t.Helper()
		d, _, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "platform", "run.yml",
			gogithub.CreateWorkflowDispatchEventRequest{Ref: "trunk", Inputs: map[string]any{"serialization_key": key},
				ReturnRunDetails: gogithub.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		return d.GetWorkflowRunID()
	}
	status := func(id int64) string {
		r, _ := s.Run(id)
		if r.Status == StatusCompleted {
			return r.Conclusion
		}
		return r.Status
	}
	expect := func(step string, want map[int64]string) {
		t.Helper()
		for id, st := range want {
			if got := status(id); got != st {
				t.Errorf("%s: run %d is %s, want %s", step, id, got, st)
			}
		}
	}
	a := dispatch("k")
	other := dispatch("other")
	b := dispatch("K") // the same group, in other case
	expect("second of a group", map[int64]string{a: StatusQueued, other: StatusQueued, b: StatusPending})
	if err := s.StartRun(b); err == nil {
		t.Error("a pending run started")
	}
	must0(s.StartRun(a))
	cc := dispatch("k")
	expect("third of a group", map[int64]string{a: StatusInProgress, b: ConclusionCancelled, cc: StatusPending})
	must0(s.CompleteRun(a, ConclusionSuccess))
	expect("holder ended", map[int64]string{cc: StatusQueued})
	if _, err := c.Actions.RerunWorkflowByID(ctx, "acme", "platform", cc); err == nil {
		t.Error("a run not completed was re-run")
	}
	if _, err := c.Actions.RerunWorkflowByID(ctx, "acme", "platform", b); err != nil {
		t.Fatal(err)
	}
	expect("re-run behind the holder", map[int64]string{cc: StatusQueued, b: StatusPending})
	if r, _ := s.Run(b); r.Attempt != 2 {
		t.Errorf("re-run attempt %d, want 2", r.Attempt)
	}
	if _, err := c.Actions.CancelWorkflowRunByID(ctx, "acme", "platform", cc); err != nil {
		if _, ok := err.(*gogithub.AcceptedError); !ok {
			t.Fatal(err)
		}
	}
	expect("holder cancelled", map[int64]string{cc: ConclusionCancelled, b: StatusQueued})
}
