package ghadispatch

// Finding a dispatched run by its idempotency key (poll.DispatchFinder).
//
// GitHub's run listing does not return a run's inputs; it returns its
// display title, which the run workflow's `run-name` renders from them.
// The shipped workflows name a run "fullsend <agent> <idempotency_key>"
// when the work_item input carries an idempotency key (a polled change),
// else "fullsend <agent> <serialization_key>" (Title). A title that shows
// the key is matched by the key itself; one of workflows generated before
// the key was shown (RunName) by harness and scope.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// MaxFindPages bounds the pages of runs (100 each) read per lookup.
const MaxFindPages = 10

// RunName is the display title "fullsend <agent> <serializationKey>", the
// run-name of a run without an idempotency key.
func RunName(agent, serializationKey string) string {
	return "fullsend " + agent + " " + serializationKey
}

// Title is the display title the shipped run workflows give run:
// `run-name: fullsend ${{ inputs.agent }} ${{ fromJSON(inputs.work_item || '{}').idempotency_key || inputs.serialization_key }}`.
func Title(run plan.Run) string {
	if key := run.WorkItem.IdempotencyKey; key != "" {
		return "fullsend " + run.Harness + " " + key
	}
	return RunName(run.Harness, string(run.Key))
}

// FindDispatched reports whether a workflow_dispatch run of run's
// workflow created at or after since (to the second, GitHub's precision)
// carries run's idempotency key in its display title, or, with the
// shipped run-name, is run's harness and scope. The newest match is
// returned. More than MaxFindPages pages of runs since then is an error
// (the answer would be a guess).
func (d *Driver) FindDispatched(ctx context.Context, run plan.Run, since time.Time) (*plan.Ref, bool, error) {
	owner, repo, full, err := d.repoFor(run)
	if err != nil {
		return nil, false, fmt.Errorf("gha-dispatch %s: %v", run.Harness, err)
	}
	wf := run.Workflow
	if wf == "" {
		wf = d.opts.DefaultWorkflow
	}
	from := since.UTC().Truncate(time.Second)
	opts := &gogithub.ListWorkflowRunsOptions{Event: "workflow_dispatch", Created: ">=" + from.Format(time.RFC3339),
		ListOptions: gogithub.ListOptions{PerPage: 100}}
	for page := 1; page <= MaxFindPages; page++ {
		runs, resp, err := github.CallFor(ctx, d.policy(true, "list runs of "+wf), func(ctx context.Context) (*gogithub.WorkflowRuns, *gogithub.Response, error) {
			return d.client.Actions.ListWorkflowRunsByFileName(ctx, owner, repo, wf, opts)
		})
		if err != nil {
			return nil, false, fmt.Errorf("gha-dispatch %s: listing runs of %s in %s since %s: %w", run.Harness, wf, full, from.Format(time.RFC3339), err)
		}
		if runs == nil || runs.WorkflowRuns == nil {
			return nil, false, fmt.Errorf("gha-dispatch %s: listing runs of %s in %s: the answer has no workflow_runs; cannot tell whether the run was dispatched", run.Harness, wf, full)
		}
		for _, r := range runs.WorkflowRuns {
			if matches(r, run, from) {
				return &plan.Ref{Driver: Name, ID: strconv.FormatInt(r.GetID(), 10), URL: r.GetHTMLURL()}, true, nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return nil, false, nil
		}
		opts.Page = resp.NextPage
	}
	return nil, false, fmt.Errorf("gha-dispatch %s: more than %d runs of %s in %s since %s; cannot tell whether the run was dispatched",
		run.Harness, MaxFindPages*100, wf, full, from.Format(time.RFC3339))
}

// matches reports whether r is run: created at or after from, and its
// title carries run's idempotency key or is the shipped run-name of run.
func matches(r *gogithub.WorkflowRun, run plan.Run, from time.Time) bool {
	if r.CreatedAt != nil && r.CreatedAt.Before(from) {
		return false
	}
	title := r.GetDisplayTitle()
	if key := run.WorkItem.IdempotencyKey; key != "" && slices.Contains(strings.Fields(title), key) {
		return true
	}
	return title == RunName(run.Harness, string(run.Key))
}
