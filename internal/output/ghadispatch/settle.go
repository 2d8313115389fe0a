package ghadispatch

// Settling duplicates: the GitHub event path (fullsend-events.yml) and
// any number of github-poll backstops may dispatch the same change, each
// run carrying the change's idempotency key in its title. After
// dispatching, each dispatcher reads the runs that carry the key and
// keeps exactly one (docs/github.md, "Backstop: github-poll").

import (
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
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// settles reports whether a dispatched run is settled (plan.Run.Settles):
// the events workflow and github-poll may both dispatch its change.
func settles(run plan.Run) bool { return run.Settles(event.SystemGitHub) }

// maxRevives bounds the runs one Settle re-runs: each carries a newer
// change than the one before, so the chain ends; a longer one is left to
// the backstop (newest.Displaced).
const maxRevives = 3

// Settle applies the newest-pending rule (newest.Settle) to our run ours
// against the runs of its scope that the run list shows since the change
// run's key names (no run of that change, or of a newer one, is older),
// and acts on it: it cancels ours when a run of a newer change, or an
// earlier run of the same change, makes it redundant; and when GitHub's
// concurrency group cancelled the pending run of a newer change because
// ours, older, was queued after it, it re-runs that run (and cancels
// ours, not started), then settles the re-run the same way. kept reports
// whether ours stays. A scheduled run's key names an entity version, not
// a time: its runs are listed from settleLookback ago, and only the
// attempts of its key not completed compete.
func (d *Driver) Settle(ctx context.Context, run plan.Run, ours int64) (kept bool, err error) {
	key := run.WorkItem.IdempotencyKey
	cur := newest.Run{ID: ours, Key: key}
	var since time.Time
	for round := 0; ; round++ {
		runs, err := d.RunsWithKey(ctx, run, key)
		if err != nil {
			return true, err
		}
		me := cur
		if i := slices.IndexFunc(runs, func(r newest.Run) bool { return r.ID == cur.ID }); i >= 0 {
			me.Created, me.State, me.Ended = runs[i].Created, runs[i].State, runs[i].Ended
		} else {
			me.Created = d.githubNow().UTC().Truncate(time.Second) // on GitHub's clock, like the others
		}
		if since.IsZero() {
			since = me.Created
		}
		v := newest.Settle(me, runs, since)
		if round == 0 {
			kept = v.Keep
		}
		revive := v.Revive != 0 && round < maxRevives
		if revive {
			if err := d.rerun(ctx, run, v.Revive); err != nil {
				return round != 0 || v.Keep, err // ours stays: nothing live carries the newer change
			}
			since = d.githubNow().UTC()
		}
		if !v.Keep {
			if err := d.cancelOwn(ctx, run, me, overOf(runs, v.Over)); err != nil {
				return true, err
			}
		}
		if !revive {
			return kept, nil
		}
		cur = newest.Run{ID: v.Revive, Key: overOf(runs, v.Revive).Key}
	}
}

// cancelOwn cancels the run this dispatcher wrote (me), which yields to
// the run over.
func (d *Driver) cancelOwn(ctx context.Context, run plan.Run, me, over newest.Run) error {
	ref := plan.Ref{Driver: Name, ID: strconv.FormatInt(me.ID, 10)}
	if _, err := d.Cancel(ctx, ref); err != nil {
		return fmt.Errorf("gha-dispatch %s: cancelling run %d, which run %d makes redundant (%s): %w", run.Harness, me.ID, over.ID, me.Key, err)
	}
	why := "another run carries the same change"
	if newest.Newer(over.Key, me.Key) {
		why = "a run of its scope carries a newer change"
	}
	d.log.Info("run cancelled: "+why, "harness", run.Harness, "key", me.Key, "cancelled", me.ID, "kept", over.ID, "kept_key", over.Key)
	return nil
}

// overOf is the run id among runs (only its id when not listed).
func overOf(runs []newest.Run, id int64) newest.Run {
	if i := slices.IndexFunc(runs, func(r newest.Run) bool { return r.ID == id }); i >= 0 {
		return runs[i]
	}
	return newest.Run{ID: id}
}

// rerun re-runs the cancelled run id (POST …/runs/{id}/rerun): the newest
// change of its scope, dropped by GitHub's concurrency group when an
// older change's run was queued after it.
func (d *Driver) rerun(ctx context.Context, run plan.Run, id int64) error {
	owner, repo, full, err := d.repoFor(run)
	if err != nil {
		return fmt.Errorf("gha-dispatch %s: %v", run.Harness, err)
	}
	_, err = github.Call(ctx, d.policy(false, "re-run run"), func(ctx context.Context) (*gogithub.Response, error) {
		return d.client.Actions.RerunWorkflowByID(ctx, owner, repo, id)
	})
	if err != nil {
		return fmt.Errorf("gha-dispatch %s: re-running run %d in %s, the newest change of %s, cancelled when an older one was queued: %w",
			run.Harness, id, full, run.Key, err)
	}
	d.log.Info("run re-run: GitHub's concurrency group had cancelled it for an older change's run", "harness", run.Harness,
		"run_id", id, "scope", string(run.Key))
	return nil
}

// settleLookback is how far back the runs of a key without a change
// time (a scheduled run's: scope key @ entity version) are listed: its
// duplicates are dispatched by pollers of the same cycle.
const settleLookback = time.Hour

// RunsWithKey lists the workflow_dispatch runs of run's workflow created
// at or after the change time key names whose title carries a key of
// key's scope.
func (d *Driver) RunsWithKey(ctx context.Context, run plan.Run, key string) ([]newest.Run, error) {
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
	var out []newest.Run
	sk := newest.Scope(key)
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
			for _, f := range strings.Fields(r.Title) {
				if f != sk && newest.Scope(f) == sk {
					out = append(out, newest.Run{ID: r.ID, Key: f, Created: r.CreatedAt.UTC(), Ended: r.UpdatedAt.UTC(),
						State: RunState(r.Status, r.Conclusion)})
					break
				}
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
		UpdatedAt  time.Time `json:"updated_at"`
	} `json:"workflow_runs"`
}

// RunState is a GitHub run's state, by its status and conclusion, for
// the newest-pending rule (github-poll reads the same run lists).
func RunState(status, conclusion string) newest.State {
	switch {
	case conclusion == "cancelled" || status == "cancelled" || conclusion == "skipped":
		return newest.Cancelled
	case status == "completed":
		return newest.Finished
	case status == "in_progress":
		return newest.Started
	}
	return newest.Waiting // queued, pending, waiting, requested
}

// keyTime is the change time an idempotency key names; zero when it
// names none.
func keyTime(key string) time.Time {
	p, ok := newest.Change(key)
	if !ok {
		return time.Time{}
	}
	return p.At
}
