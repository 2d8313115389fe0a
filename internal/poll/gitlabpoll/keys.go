package gitlabpoll

import (
	"context"
	"strings"
	"sync"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// keyIndex is the set of idempotency keys the project's fullsend
// pipelines carry. A pipeline's variables never change, so each pipeline
// costs one variables read, once.
type keyIndex struct {
	gl      *gitlab.Client
	project string
	mu      sync.Mutex
	byID    map[int64]string // pipeline id → key ("" when it has none)
	keys    map[string]bool
	newestP map[string]changepos.Pos // scope key without harness → newest change
	// pipes: the pipelines of the last listing that carry a scoped key,
	// with their status, for scheduled discovery's records (records.go)
	pipes   map[int64]pipe
	wasRead bool // a listing was read (or restored from the state directory)
}

// pipe is one fullsend pipeline as the last listing showed it.
type pipe struct {
	Key     string    `json:"key"`
	Status  string    `json:"status"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

func newKeyIndex(gl *gitlab.Client, project string) *keyIndex {
	return &keyIndex{gl: gl, project: project, byID: map[int64]string{}, keys: map[string]bool{},
		newestP: map[string]changepos.Pos{}, pipes: map[int64]pipe{}}
}

// refresh reads the pipelines created at or after since (newest first,
// stopping at the first older one) and the variables of those not seen.
func (k *keyIndex) refresh(ctx context.Context, since time.Time) error {
	from := since.Truncate(time.Second)
	desc, by := "desc", "id"
	lo := gitlab.ListOptions{PerPage: 100, Page: 1}
	listed := map[int64]pipe{}
	defer func() { k.listed(from, listed) }()
	for range maxPages {
		ps, resp, err := k.gl.Pipelines.ListProjectPipelines(k.project, &gitlab.ListProjectPipelinesOptions{
			ListOptions: lo, OrderBy: &by, Sort: &desc}, gitlab.WithContext(ctx))
		if err != nil {
			return err
		}
		for _, p := range ps {
			if p.CreatedAt != nil && p.CreatedAt.Before(from) {
				return nil
			}
			if err := k.read(ctx, p); err != nil {
				return err
			}
			k.keep(listed, p)
		}
		if resp == nil || resp.NextPage == 0 {
			return nil
		}
		lo.Page = resp.NextPage
	}
	return nil
}

// keep adds p to listed when it carries a scoped key.
func (k *keyIndex) keep(listed map[int64]pipe, p *gitlab.PipelineInfo) {
	k.mu.Lock()
	key := k.byID[p.ID]
	k.mu.Unlock()
	if _, _, _, ok := reconcile.SplitScoped(key); !ok {
		return
	}
	listed[p.ID] = pipe{Key: key, Status: p.Status, Created: timeOf(p.CreatedAt), Updated: timeOf(p.UpdatedAt)}
}

// listed makes the pipelines of a listing from floor the records'
// (those created before floor are dropped).
func (k *keyIndex) listed(floor time.Time, listed map[int64]pipe) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, p := range k.pipes {
		if _, ok := listed[id]; !ok && !p.Created.Before(floor) {
			listed[id] = p // a page not read (an error): the last status known
		}
	}
	k.pipes, k.wasRead = listed, true
}

func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func (k *keyIndex) read(ctx context.Context, p *gitlab.PipelineInfo) error {
	k.mu.Lock()
	_, seen := k.byID[p.ID]
	k.mu.Unlock()
	if seen || !strings.HasPrefix(p.Name, glapi.NamePrefix) {
		return nil
	}
	vars, _, err := k.gl.Pipelines.GetPipelineVariables(k.project, p.ID, gitlab.WithContext(ctx))
	if err != nil {
		return err
	}
	key := ""
	for _, v := range vars {
		if v.Key == glapi.VarIdempotencyKey {
			key = v.Value
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.byID[p.ID] = key
	if key != "" {
		k.keys[key] = true
		k.note(key)
	}
	return nil
}

// note records the change position of key (scope key "@" Unix
// milliseconds, and "." the change's id when it has one:
// changepos.ParseID) under the scope key without its harness.
func (k *keyIndex) note(key string) {
	_, tail, suffix, ok := reconcile.SplitScoped(key)
	if !ok {
		return
	}
	if pos, ok := changepos.ParseID(suffix); ok && pos.After(k.newestP[tail]) {
		k.newestP[tail] = pos
	}
}

// newest is the newest change position a pipeline records for the scope
// tail (zero when none).
func (k *keyIndex) newest(tail string) changepos.Pos {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.newestP[tail]
}

func (k *keyIndex) has(key string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys[key]
}
