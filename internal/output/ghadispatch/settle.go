package ghadispatch

// Settling duplicates: the GitHub event path (fullsend-events.yml) and
// any number of github-poll backstops may dispatch the same change, each
// run carrying the change's idempotency key in its title. After
// dispatching, each dispatcher reads the runs that carry the key and
// keeps exactly one (docs/github.md, "Backstop: github-poll").

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// KeyRun is a run that carries an idempotency key, as the run list shows
// it.
type KeyRun struct {
	ID        int64
	CreatedAt time.Time
	Status    string // queued, in_progress, completed, …
	Cancelled bool   // conclusion (or status) cancelled
}

// Started reports whether the run has left the queue.
func (r KeyRun) Started() bool {
	return !r.Cancelled && (r.Status == "in_progress" || r.Status == "completed")
}

// Survivor is the settle rule: of the runs carrying one key that are not
// cancelled, the oldest that has started (in_progress or completed), else
// the oldest (lowest id). Every dispatcher applies it to what it reads and
// cancels only its own run when it is not the survivor; a run already
// cancelled never counts, so a dispatcher that sees every other run
// cancelled keeps its own. ok is false when no run is live.
func Survivor(runs []KeyRun) (id int64, ok bool) {
	var live []KeyRun
	for _, r := range runs {
		if !r.Cancelled {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return 0, false
	}
	slices.SortFunc(live, func(a, b KeyRun) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, r := range live {
		if r.Started() {
			return r.ID, true
		}
	}
	return live[0].ID, true
}

// settles reports whether a dispatched run is settled: it carries an
// idempotency key of a GitHub subject, the one kind of change two paths
// (the events workflow and github-poll) may both dispatch.
func settles(run plan.Run) bool {
	if run.WorkItem.IdempotencyKey == "" {
		return false
	}
	_, _, s, err := scope.Parse(run.Key)
	return err == nil && s.System == event.SystemGitHub
}

// Settle applies Survivor to the runs of run's workflow that carry run's
// idempotency key (ours among them) and cancels ours when another run
// survives. kept reports whether ours is the survivor. The listing starts
// at the change time the key names: no run of the change can be older. A
// scheduled run's key names an entity version, not a time: its runs are
// listed from settleLookback ago, and only those not completed compete
// (attemptRuns).
func (d *Driver) Settle(ctx context.Context, run plan.Run, ours int64) (kept bool, err error) {
	key := run.WorkItem.IdempotencyKey
	runs, err := d.RunsWithKey(ctx, run, key)
	if err != nil {
		return true, err
	}
	if !slices.ContainsFunc(runs, func(r KeyRun) bool { return r.ID == ours }) {
		runs = append(runs, KeyRun{ID: ours, CreatedAt: d.githubNow().UTC(), Status: "queued"}) // on GitHub's clock, like the others
	}
	if keyTime(key).IsZero() {
		runs = attemptRuns(runs, ours)
	}
	win, ok := Survivor(runs)
	if !ok || win == ours {
		return true, nil
	}
	ref := plan.Ref{Driver: Name, ID: strconv.FormatInt(ours, 10)}
	if _, err := d.Cancel(ctx, ref); err != nil {
		return true, fmt.Errorf("gha-dispatch %s: cancelling run %d, a duplicate of run %d for %s: %w", run.Harness, ours, win, key, err)
	}
	d.log.Info("duplicate run cancelled: another run carries the same change", "harness", run.Harness,
		"key", key, "cancelled", ours, "kept", win)
	return false, nil
}

// settleLookback is how far back the runs of a key without a change
// time (a scheduled run's: scope key @ entity version) are listed: its
// duplicates are dispatched by pollers of the same cycle.
const settleLookback = time.Hour

// attemptRuns keeps, of the runs carrying a scheduled run's key, ours and
// those not completed: a completed one is an earlier attempt of the
// version (its retry carries the same key), not a duplicate of ours.
func attemptRuns(runs []KeyRun, ours int64) []KeyRun {
	var out []KeyRun
	for _, r := range runs {
		if r.ID == ours || r.Status != "completed" {
			out = append(out, r)
		}
	}
	return out
}

// RunsWithKey lists the workflow_dispatch runs of run's workflow created
// at or after the change time key names whose title carries key.
func (d *Driver) RunsWithKey(ctx context.Context, run plan.Run, key string) ([]KeyRun, error) {
	owner, repo, full, err := d.repoFor(run)
	if err != nil {
		return nil, fmt.Errorf("gha-dispatch %s: %v", run.Harness, err)
	}
	wf := run.Workflow
	if wf == "" {
		wf = d.opts.DefaultWorkflow
	}
	from := keyTime(key).Truncate(time.Second)
	if from.IsZero() {
		from = d.githubNow().UTC().Add(-settleLookback).Truncate(time.Second)
	}
	opts := &gogithub.ListWorkflowRunsOptions{Event: "workflow_dispatch", Created: ">=" + from.Format(time.RFC3339)}
	var out []KeyRun
	u := fmt.Sprintf("repos/%s/%s/actions/workflows/%s/runs", owner, repo, url.PathEscape(wf))
	for page := 1; page <= MaxFindPages; page++ {
		var runs titledRuns
		resp, err := github.Call(ctx, d.policy(true, "list runs of "+wf), func(ctx context.Context) (*gogithub.Response, error) {
			q := url.Values{"event": {opts.Event}, "created": {opts.Created}, "per_page": {"100"}, "page": {strconv.Itoa(page)}}
			req, err := d.client.NewRequest(ctx, http.MethodGet, u+"?"+q.Encode(), nil)
			if err != nil {
				return nil, err
			}
			return d.client.Do(req, &runs)
		})
		if err != nil {
			return nil, fmt.Errorf("gha-dispatch %s: listing runs of %s in %s: %w", run.Harness, wf, full, err)
		}
		for _, r := range runs.Runs {
			if slices.Contains(strings.Fields(r.Title), key) {
				out = append(out, KeyRun{ID: r.ID, CreatedAt: r.CreatedAt.UTC(), Status: r.Status,
					Cancelled: r.Conclusion == "cancelled" || r.Status == "cancelled"})
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("gha-dispatch %s: more than %d runs of %s in %s since %s; cannot settle %s",
		run.Harness, MaxFindPages*100, wf, full, from.Format(time.RFC3339), key)
}

// titledRuns is the part of a run list Settle reads (decoding go-github's
// full WorkflowRun for every run of a busy window costs more than the
// request).
type titledRuns struct {
	Runs []struct {
		ID         int64     `json:"id"`
		Title      string    `json:"display_title"`
		Status     string    `json:"status"`
		Conclusion string    `json:"conclusion"`
		CreatedAt  time.Time `json:"created_at"`
	} `json:"workflow_runs"`
}

// keyTime is the change time an idempotency key ends with ("@" and Unix
// milliseconds); zero when it has none.
func keyTime(key string) time.Time {
	_, ms, ok := strings.Cut(key, "@")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil {
		return time.Time{}
	}
	return time.UnixMilli(n).UTC()
}
