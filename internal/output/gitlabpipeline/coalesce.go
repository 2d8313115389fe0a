package gitlabpipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/newest"
)

// CoalesceResult says what coalescing did for one scope.
type CoalesceResult struct {
	Cancelled []int64 // older pipelines that were still waiting, now cancelled
	Kept      []int64 // older pipelines left alone: a job holds or held the resource
}

// coalesce cancels the pipelines of the scope rk that still wait for the
// resource and that our pipeline me supersedes (newest.Supersedes): those
// carrying an older change than ours, or, when either carries no change,
// those created before it. l reads (once) the keys of the candidates.
// Each candidate's jobs are read immediately before its cancel; one job
// that is not created or waiting_for_resource keeps the pipeline alive.
func (d *Driver) coalesce(ctx context.Context, rk string, me newest.Run, l *glapi.ScopeList) (CoalesceResult, error) {
	var res CoalesceResult
	_, byChange := newest.Change(me.Key)
	var cands []newest.Run
	for _, st := range []gitlab.BuildStateValue{gitlab.Created, gitlab.WaitingForResource} {
		ps, err := d.listScope(ctx, rk, &st, "asc", func(*gitlab.PipelineInfo) bool { return false })
		if err != nil {
			return res, err
		}
		for _, p := range ps {
			if p.ID == me.ID {
				continue
			}
			c := glapi.RunOf(p)
			if byChange {
				if c.Key, err = l.Key(ctx, p.ID); err != nil {
					return res, err
				}
			}
			if newest.Supersedes(me, c) {
				cands = append(cands, c)
			}
		}
	}
	slices.SortFunc(cands, func(a, b newest.Run) int { return cmp.Compare(a.ID, b.ID) })
	cands = slices.CompactFunc(cands, func(a, b newest.Run) bool { return a.ID == b.ID })
	var errs []error
	for _, c := range cands {
		id := c.ID
		if ctx.Err() != nil {
			return res, errors.Join(append(errs, ctx.Err())...)
		}
		jobs, _, err := d.gl.Jobs.ListPipelineJobs(d.o.Project, id, &gitlab.ListJobsOptions{
			ListOptions: gitlab.ListOptions{PerPage: 100}}, gitlab.WithContext(ctx))
		if err != nil {
			errs = append(errs, fmt.Errorf("list jobs of pipeline %d: %w", id, err))
			continue
		}
		if !allWaiting(jobs) {
			res.Kept = append(res.Kept, id)
			continue
		}
		if _, _, err := d.gl.Pipelines.CancelPipelineBuild(d.o.Project, id, gitlab.WithContext(glapi.WriteCtx(ctx))); err != nil {
			errs = append(errs, fmt.Errorf("cancel superseded pipeline %d: %w", id, err))
			continue
		}
		res.Cancelled = append(res.Cancelled, id)
	}
	return res, errors.Join(errs...)
}

// allWaiting reports whether the pipeline has jobs and none of them has
// acquired its resource (or run, or finished differently than cancelled).
func allWaiting(jobs []*gitlab.Job) bool {
	if len(jobs) == 0 {
		return false
	}
	for _, j := range jobs {
		switch gitlab.BuildStateValue(j.Status) {
		case gitlab.Created, gitlab.WaitingForResource, gitlab.Canceled, gitlab.Skipped:
		default:
			return false
		}
	}
	return true
}

// listScope lists the pipelines named for scope rk, optionally with one
// status, ordered by id in sort order. stop ends pagination early once a
// page holds a pipeline for which it returns true (used with descending
// order to stop at older pipelines).
func (d *Driver) listScope(ctx context.Context, rk string, status *gitlab.BuildStateValue, sort string, stop func(*gitlab.PipelineInfo) bool) ([]*gitlab.PipelineInfo, error) {
	opt := &gitlab.ListProjectPipelinesOptions{
		ListOptions: gitlab.ListOptions{PerPage: 100, Page: 1},
		Name:        gitlab.Ptr(glapi.PipelineName(rk)),
		Status:      status,
		OrderBy:     gitlab.Ptr("id"),
		Sort:        gitlab.Ptr(sort),
	}
	var all []*gitlab.PipelineInfo
	for page := 0; page < glapi.MaxListPages; page++ {
		ps, resp, err := d.gl.Pipelines.ListProjectPipelines(d.o.Project, opt, gitlab.WithContext(ctx))
		if err != nil {
			return all, fmt.Errorf("list pipelines named %q in project %s: %w", glapi.PipelineName(rk), d.o.Project, err)
		}
		all = append(all, ps...)
		if slices.ContainsFunc(ps, stop) || resp.NextPage == 0 {
			return all, nil
		}
		opt.Page = resp.NextPage
	}
	return all, fmt.Errorf("list pipelines named %q in project %s: more than %d pages", glapi.PipelineName(rk), d.o.Project, glapi.MaxListPages)
}

// ensureProcessMode switches the scope's resource group to newest_first
// once per driver, so that if an older waiter survives coalescing the
// newest one still acquires the resource first. Failures are logged: the
// pipeline is already created and coalescing does not depend on it.
func (d *Driver) ensureProcessMode(ctx context.Context, rk string) {
	if d.o.ProcessMode == ProcessModeLeave {
		return
	}
	key := glapi.GroupKey(rk)
	d.mu.Lock()
	done := d.modeSet[key]
	d.mu.Unlock()
	if done {
		return
	}
	log := d.o.Log.With("driver", Name, "project", d.o.Project, "resource_group", key)
	g, resp, err := d.gl.ResourceGroup.GetASpecificResourceGroup(d.o.Project, key, gitlab.WithContext(ctx))
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			log.Warn("resource group not found after creating a pipeline; does the agent job set resource_group: fullsend-$FULLSEND_RESOURCE_KEY?")
		} else {
			log.Warn("cannot read resource group", "error", err.Error())
		}
		return
	}
	if g.ProcessMode != ProcessModeNewestFirst {
		mode := gitlab.ResourceGroupProcessMode(ProcessModeNewestFirst)
		if _, _, err := d.gl.ResourceGroup.EditAnExistingResourceGroup(d.o.Project, key,
			&gitlab.EditAnExistingResourceGroupOptions{ProcessMode: &mode}, gitlab.WithContext(glapi.WriteCtx(ctx))); err != nil {
			log.Warn("cannot set process_mode newest_first", "error", err.Error())
			return
		}
		log.Info("resource group set to newest_first", "was", g.ProcessMode)
	}
	d.mu.Lock()
	d.modeSet[key] = true
	d.mu.Unlock()
}
