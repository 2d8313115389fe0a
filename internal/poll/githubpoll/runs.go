package githubpoll

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/github"
)

// runIndex is what the run workflow's runs record: per scope, the newest
// change time of the idempotency keys their titles carry ("fullsend <harness> <scope key>@<ms>"), cancelled
// runs included (a change whose run was cancelled, by a person or by
// GitHub's concurrency group, counts as handled).
type runIndex struct {
	p       *Poller
	mu      sync.Mutex
	newestT map[string]time.Time // scope key without harness → newest change
}

func newRunIndex(p *Poller) *runIndex {
	return &runIndex{p: p, newestT: map[string]time.Time{}}
}

// refresh reads the runs created at or after floor (newest first, every
// page; the first one conditionally).
func (k *runIndex) refresh(ctx context.Context, floor time.Time) error {
	p := k.p
	q := url.Values{"event": {"workflow_dispatch"}, "created": {">=" + floor.UTC().Format(time.RFC3339)}, "per_page": {"100"}}
	u := fmt.Sprintf("repos/%s/%s/actions/workflows/%s/runs?%s", p.owner, p.name, url.PathEscape(p.o.Workflow), q.Encode())
	raw, _, err := p.listing(ctx, u, "workflow_runs", nil)
	var f *github.Failure
	if errors.As(err, &f) && f.Status == http.StatusNotFound {
		return fmt.Errorf("github-poll: the run workflow %s is not in %s (outputs.gha-dispatch.workflow; `fullsend workflows generate` writes it): %w",
			p.o.Workflow, p.o.Repo, err)
	}
	if err != nil {
		return fmt.Errorf("github-poll: reading the runs of %s: %w", p.o.Workflow, err)
	}
	runs, err := decode[gogithub.WorkflowRun](raw)
	if err != nil {
		return fmt.Errorf("github-poll: decoding the runs of %s: %w", p.o.Workflow, err)
	}
	newest := map[string]time.Time{}
	for _, r := range runs {
		for _, f := range strings.Fields(r.GetDisplayTitle()) {
			tail, at, ok := splitKey(f)
			if !ok {
				continue
			}
			if at.After(newest[tail]) {
				newest[tail] = at
			}
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.newestT = newest
	return nil
}

// splitKey splits an idempotency key "<harness>:<repo>:<system>:<kind>:<id>@<ms>"
// into the scope key without its harness and the change time.
func splitKey(key string) (tail string, at time.Time, ok bool) {
	sk, ms, found := strings.Cut(key, "@")
	if !found || strings.Count(sk, ":") != 4 {
		return "", time.Time{}, false
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return "", time.Time{}, false
	}
	_, tail, _ = strings.Cut(sk, ":")
	return tail, time.UnixMilli(n).UTC(), true
}

// newest is the newest change a run records for the scope tail (zero when
// none).
func (k *runIndex) newest(tail string) time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.newestT[tail]
}
