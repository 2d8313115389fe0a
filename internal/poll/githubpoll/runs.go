package githubpoll

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// runIndex is what the run workflow's runs record: per scope, the newest
// change position (time, then id: changepos.Pos) of the idempotency
// keys their titles carry ("fullsend <harness> <scope key>@<ms>.<id>", or
// "@<ms>" for a change without an id), cancelled
// runs included (a change whose run was cancelled, by a person or by
// GitHub's concurrency group, counts as handled); and, for scheduled
// discovery, every run by scope and harness with its status (records.go).
type runIndex struct {
	p       *Poller
	mu      sync.Mutex
	newestP map[string]changepos.Pos // scope key without harness → newest change
	byTail  map[string]map[string][]runInfo
	read    bool // a listing was read or restored
	pending bool // some run was not completed when it was read
	waiting bool // some run was waiting (not started) when it was read
	// displaced: the tails with a change GitHub's concurrency group
	// dropped that no live run covers (undisplace)
	displaced map[string]bool
	// open: the versions ("harness:tail@version") with runs that ended
	// without success and none that succeeded (a retry may come due)
	open map[string]bool
}

// runInfo is one run as the run list shows it, with the part of its
// idempotency key after "@" (a change time, or an entity version).
type runInfo struct {
	id                 int64
	suffix             string
	status, conclusion string
	created, updated   time.Time
}

func newRunIndex(p *Poller) *runIndex {
	return &runIndex{p: p, newestP: map[string]changepos.Pos{}, byTail: map[string]map[string][]runInfo{}}
}

// runsURL is the listing of the runs created at or after floor.
func (k *runIndex) runsURL(floor time.Time, upTo time.Time) string {
	p := k.p
	created := ">=" + floor.UTC().Format(time.RFC3339)
	if !upTo.IsZero() {
		created = floor.UTC().Format(time.RFC3339) + ".." + upTo.UTC().Format(time.RFC3339)
	}
	q := url.Values{"event": {"workflow_dispatch"}, "created": {created}, "per_page": {"100"}}
	return fmt.Sprintf("repos/%s/%s/actions/workflows/%s/runs?%s", p.owner, p.name, url.PathEscape(p.o.Workflow), q.Encode())
}

// refresh reads the runs created at or after floor (newest first, every
// page; the first one conditionally).
func (k *runIndex) refresh(ctx context.Context, floor time.Time) error {
	runs, err := k.p.readRuns(ctx, k.runsURL(floor, time.Time{}), maxPages)
	if err != nil {
		return err
	}
	k.index(runs)
	return nil
}

// restoreCached indexes the runs listing as last read (the state
// directory keeps it), without a request; false when there is none.
func (k *runIndex) restoreCached(floor time.Time) bool {
	e, ok := k.p.cache.get(k.runsURL(floor, time.Time{}))
	if !ok {
		return false
	}
	runs, err := decode[gogithub.WorkflowRun](e.items)
	if err != nil {
		return false
	}
	k.index(runs)
	return true
}

// readRuns reads the run list at u, at most pages pages.
func (p *Poller) readRuns(ctx context.Context, u string, pages int) ([]*gogithub.WorkflowRun, error) {
	n := 0
	raw, _, err := p.listing(ctx, u, "workflow_runs", func([]json.RawMessage) bool { n++; return n < pages })
	var f *github.Failure
	if errors.As(err, &f) && f.Status == http.StatusNotFound {
		return nil, fmt.Errorf("github-poll: the run workflow %s is not in %s (outputs.gha-dispatch.workflow; `fullsend workflows generate` writes it): %w",
			p.o.Workflow, p.o.Repo, err)
	}
	if err != nil {
		return nil, fmt.Errorf("github-poll: reading the runs of %s: %w", p.o.Workflow, err)
	}
	runs, err := decode[gogithub.WorkflowRun](raw)
	if err != nil {
		return nil, fmt.Errorf("github-poll: decoding the runs of %s: %w", p.o.Workflow, err)
	}
	return runs, nil
}

// index replaces the index with runs.
func (k *runIndex) index(runs []*gogithub.WorkflowRun) {
	newest := map[string]changepos.Pos{}
	by := map[string]map[string][]runInfo{}
	pending, waiting := false, false
	for _, r := range runs {
		for _, f := range strings.Fields(r.GetDisplayTitle()) {
			h, tail, suffix, ok := splitScoped(f)
			if !ok {
				continue
			}
			if _, pos, ok := splitKey(f); ok && pos.After(newest[tail]) {
				newest[tail] = pos
			}
			if by[tail] == nil {
				by[tail] = map[string][]runInfo{}
			}
			ri := infoOf(r, suffix)
			pending = pending || ri.status != statusCompleted
			waiting = waiting || ri.waiting()
			by[tail][h] = append(by[tail][h], ri)
		}
	}
	displaced := undisplace(newest, by)
	open := map[string]bool{}
	for tail, hs := range by {
		for h, rs := range hs {
			ok := map[string]bool{}
			for _, r := range rs {
				if r.conclusion == conclusionSuccess {
					ok[r.suffix] = true
				}
			}
			for _, r := range rs {
				if _, isChange := changepos.ParseID(r.suffix); !isChange && !ok[r.suffix] && r.status == statusCompleted {
					open[h+":"+tail+"@"+r.suffix] = true
				}
			}
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.newestP, k.byTail, k.read, k.pending, k.waiting, k.open, k.displaced = newest, by, true, pending, waiting, open, displaced
}

// anyWaiting reports whether a run of the last list read (or restored)
// was waiting: GitHub's concurrency group may cancel it since.
func (k *runIndex) anyWaiting() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.waiting
}

// wasDisplaced reports whether the last list read shows a change of tail
// whose runs GitHub's concurrency group dropped and no live run covers.
func (k *runIndex) wasDisplaced(tail string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.displaced[tail]
}

// isRead reports whether a run list was indexed.
func (k *runIndex) isRead() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.read
}

// mayChange reports whether the run records may say something new to
// scheduled discovery without any listing changing: a run was going, or
// a version not given up on may be retried.
func (k *runIndex) mayChange(p *Poller) bool {
	k.mu.Lock()
	pending := k.pending
	var open []string
	for v := range k.open {
		open = append(open, v)
	}
	k.mu.Unlock()
	if pending {
		return true
	}
	for _, v := range open {
		if !p.giveUps.Has(v) {
			return true
		}
	}
	return false
}

// waiting reports whether the run has not started (GitHub's concurrency
// group may still cancel it for another run queued after it).
func (r runInfo) waiting() bool {
	return ghadispatch.RunState(r.status, r.conclusion) == newest.Waiting
}

func infoOf(r *gogithub.WorkflowRun, suffix string) runInfo {
	return runInfo{id: r.GetID(), suffix: suffix, status: r.GetStatus(), conclusion: r.GetConclusion(),
		created: r.GetCreatedAt().UTC(), updated: r.GetUpdatedAt().UTC()}
}

// splitScoped is reconcile's.
var splitScoped = reconcile.SplitScoped

// splitKey splits an idempotency key "<harness>:<repo>:<system>:<kind>:<id>@<change id>"
// into the scope key without its harness and the change's position.
func splitKey(key string) (tail string, pos changepos.Pos, ok bool) {
	_, tail, suffix, ok := splitScoped(key)
	if !ok {
		return "", changepos.Pos{}, false
	}
	pos, ok = changepos.ParseID(suffix)
	if !ok {
		return "", changepos.Pos{}, false
	}
	return tail, pos, true
}

// newest is the newest change position a run records for the scope tail
// (zero when none).
func (k *runIndex) newest(tail string) changepos.Pos {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.newestP[tail]
}
