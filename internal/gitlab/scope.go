package gitlab

import (
	"context"
	"fmt"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/newest"
)

// ScopeList is one listing of a scope's pipelines (named name), newest
// first, for the newest-pending rule (newest): every pipeline with an id
// above stopID and created at or after from (either bound may be zero),
// with the idempotency key of those for which withKey returns true (one
// variables read each, remembered in keys across listings).
type ScopeList struct {
	Client  *gitlab.Client
	Project string
	name    string
	keys    map[int64]string // pipeline id → FULLSEND_IDEMPOTENCY_KEY ("" when none)
}

// NewScopeList starts the listings of the pipelines named name (a
// scope's: PipelineName) in project.
func NewScopeList(gl *gitlab.Client, project, name string) *ScopeList {
	return &ScopeList{Client: gl, Project: project, name: name, keys: map[int64]string{}}
}

// List is one listing of the scope's pipelines (see the type).
func (l *ScopeList) List(ctx context.Context, from time.Time, stopID int64, withKey func(*gitlab.PipelineInfo) bool) ([]newest.Run, error) {
	desc, by := "desc", "id"
	lo := gitlab.ListOptions{PerPage: 100, Page: 1}
	from = from.Truncate(time.Second)
	var out []newest.Run
	for range MaxListPages {
		ps, resp, err := l.Client.Pipelines.ListProjectPipelines(l.Project, &gitlab.ListProjectPipelinesOptions{
			ListOptions: lo, Name: &l.name, OrderBy: &by, Sort: &desc}, gitlab.WithContext(ctx))
		if err != nil {
			return out, fmt.Errorf("list pipelines named %q in project %s: %w", l.name, l.Project, err)
		}
		for _, p := range ps {
			if p.ID <= stopID || !from.IsZero() && p.CreatedAt != nil && p.CreatedAt.Before(from) {
				return out, nil
			}
			r := RunOf(p)
			if withKey(p) {
				if r.Key, err = l.Key(ctx, p.ID); err != nil {
					return out, err
				}
			}
			out = append(out, r)
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		lo.Page = resp.NextPage
	}
	return out, fmt.Errorf("list pipelines named %q in project %s: more than %d pages", l.name, l.Project, MaxListPages)
}

// Key is pipeline id's idempotency key, read once.
func (l *ScopeList) Key(ctx context.Context, id int64) (string, error) {
	if k, ok := l.keys[id]; ok {
		return k, nil
	}
	vars, _, err := l.Client.Pipelines.GetPipelineVariables(l.Project, id, gitlab.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("reading the variables of pipeline %d: %w", id, err)
	}
	k := ""
	for _, v := range vars {
		if v.Key == VarIdempotencyKey {
			k = v.Value
		}
	}
	l.keys[id] = k
	return k, nil
}

// RunOf is a listed pipeline for the newest-pending rule: its id orders
// pipelines created in one instant.
func RunOf(p *gitlab.PipelineInfo) newest.Run {
	r := newest.Run{ID: p.ID, Seq: p.ID, State: StateOf(p.Status)}
	if p.CreatedAt != nil {
		r.Created = p.CreatedAt.UTC()
	}
	if p.UpdatedAt != nil {
		r.Ended = p.UpdatedAt.UTC()
	}
	return r
}

// StateOf is a pipeline status's state for the newest-pending rule: a
// pipeline whose job holds the resource but has not started (pending) is
// still waiting.
func StateOf(status string) newest.State {
	switch status {
	case string(gitlab.Running):
		return newest.Started
	case string(gitlab.Success), string(gitlab.Failed):
		return newest.Finished
	case string(gitlab.Canceled), string(gitlab.Skipped):
		return newest.Cancelled
	}
	return newest.Waiting
}

// Live reports whether a listed pipeline is neither cancelled nor
// skipped: one whose key the rule needs.
func Live(p *gitlab.PipelineInfo) bool { return StateOf(p.Status) != newest.Cancelled }

// MaxListPages bounds pagination of one pipelines list.
const MaxListPages = 50
