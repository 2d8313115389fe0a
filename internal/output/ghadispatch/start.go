package ghadispatch

// The run's half of settling: a dispatcher settles its run after
// dispatching it (Settle), but GitHub may start the run first, so the
// run workflow's `fullsend run` applies the same rule before it starts
// its agent (docs/github.md, "The run's own check").

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// Yields applies newest.Yields to run ours, the running run of plan run
// (whose idempotency key names a GitHub change), against the runs of its
// scope (RunsWithKey: one page of the run list per 100 runs created
// since the change), and returns the run ours yields to: when ok, ours
// must exit without starting its agent. retry is a later attempt of
// ours (a re-run). ours missing from the list (a run-name that does not
// show the key) is an error: nothing can be told of the others either.
func (d *Driver) Yields(ctx context.Context, run plan.Run, ours int64, retry bool) (over newest.Run, ok bool, err error) {
	key := run.WorkItem.IdempotencyKey
	runs, err := d.RunsWithKey(ctx, run, key)
	if err != nil {
		return newest.Run{}, false, err
	}
	i := slices.IndexFunc(runs, func(r newest.Run) bool { return r.ID == ours })
	if i < 0 || runs[i].Key != key {
		return newest.Run{}, false, fmt.Errorf("gha-dispatch %s: run %d is not among the runs titled with %s; "+
			"the run workflow's run-name must show the idempotency key", run.Harness, ours, key)
	}
	a := newest.Attempt{Retry: retry}
	if !retry {
		a.Since = runs[i].Created
	}
	over, ok = newest.Yields(runs[i], runs, a)
	return over, ok, nil
}

// CheckStart is the run job's start-up check inside GitHub Actions,
// before `fullsend run` starts its agent. It reads GITHUB_RUN_ID,
// GITHUB_RUN_ATTEMPT, GITHUB_REPOSITORY, GITHUB_WORKFLOW_REF (the
// dispatched workflow: a called reusable workflow sees its caller's),
// the run's FULLSEND_WORK_ITEM and FULLSEND_SERIALIZATION_KEY inputs,
// GITHUB_API_URL and GITHUB_TOKEN (or GH_TOKEN; actions: read). Outside a
// GitHub Actions run, or for a run whose idempotency key names no GitHub
// subject (a Jira change, which the poll lock serializes; a run started
// by hand), it returns false and no error. When it returns true, msg
// says which run makes this one redundant, and the caller exits 0
// without starting the agent.
func CheckStart(ctx context.Context, getenv func(string) string, o Options) (yield bool, msg string, err error) {
	run, id, retry, ok, err := startRun(getenv)
	if err != nil || !ok {
		return false, "", err
	}
	if o.Repo == "" {
		o.Repo = strings.TrimSpace(getenv("GITHUB_REPOSITORY"))
	}
	if o.DefaultWorkflow == "" {
		o.DefaultWorkflow = workflowFile(getenv("GITHUB_WORKFLOW_REF"))
	}
	if o.DefaultWorkflow == "" {
		return false, "", fmt.Errorf("gha-dispatch: GITHUB_WORKFLOW_REF %q names no workflow file", getenv("GITHUB_WORKFLOW_REF"))
	}
	o.Getenv = getenv
	d, err := New(o)
	if err != nil {
		return false, "", err
	}
	over, yield, err := d.Yields(ctx, run, id, retry)
	if err != nil || !yield {
		return false, "", err
	}
	why := "carries the same change and started first"
	if over.Key != run.WorkItem.IdempotencyKey {
		why = "covers this run's change (a newer change of the scope, or a run queued after this scheduled one)"
	}
	return true, fmt.Sprintf("run %d (%s) is redundant: run %d (%s) %s; exiting without starting the agent",
		id, run.WorkItem.IdempotencyKey, over.ID, over.Key, why), nil
}

// StartCheck is CheckStart with default options logging to log, as
// `fullsend run` calls it (runner.Request.GitHubStartCheck).
func StartCheck(ctx context.Context, getenv func(string) string, log *slog.Logger) (yield bool, msg string, err error) {
	return CheckStart(ctx, getenv, Options{Log: log})
}

// startRun is the run CheckStart checks, from the environment: ok is
// false outside GitHub Actions or for a run no dispatcher settles.
func startRun(getenv func(string) string) (run plan.Run, id int64, retry, ok bool, err error) {
	idText := strings.TrimSpace(getenv("GITHUB_RUN_ID"))
	wi := strings.TrimSpace(getenv(plan.EnvVar(plan.InWorkItem)))
	if idText == "" || wi == "" {
		return run, 0, false, false, nil
	}
	if id, err = strconv.ParseInt(idText, 10, 64); err != nil || id < 1 {
		return run, 0, false, false, fmt.Errorf("gha-dispatch: GITHUB_RUN_ID %q is not a run id", idText)
	}
	if err := json.Unmarshal([]byte(wi), &run.WorkItem); err != nil {
		return run, 0, false, false, fmt.Errorf("gha-dispatch: %s is not a work item: %v", plan.EnvVar(plan.InWorkItem), err)
	}
	run.Key = scope.Key(strings.TrimSpace(getenv(plan.EnvVar(plan.InSerializationKey))))
	run.Harness = strings.TrimSpace(getenv(plan.EnvVar(plan.InAgent)))
	if !settles(run) {
		return run, 0, false, false, nil
	}
	if newest.Scope(run.WorkItem.IdempotencyKey) != string(run.Key) {
		return run, 0, false, false, fmt.Errorf("gha-dispatch: idempotency key %q is not of the run's scope %s", run.WorkItem.IdempotencyKey, run.Key)
	}
	attempt, _ := strconv.Atoi(strings.TrimSpace(getenv("GITHUB_RUN_ATTEMPT")))
	return run, id, attempt > 1, true, nil
}

// workflowFile is the file name of a workflow ref
// (owner/repo/.github/workflows/fullsend-run.yml@refs/heads/main), ""
// when it names none.
func workflowFile(ref string) string {
	p, _, _ := strings.Cut(strings.TrimSpace(ref), "@")
	if !strings.Contains(p, "/.github/workflows/") {
		return ""
	}
	return path.Base(p)
}
