package gitlabpoll

import (
	"context"
	"strconv"
	"strings"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// The receipts of scheduled discovery (ARCHITECTURE.md, "Receipts and
// scheduled discovery"): GitLab keeps no property of ours on an issue or
// merge request, so the pipelines are the receipts. A scheduled run's
// pipeline carries its idempotency key (FULLSEND_IDEMPOTENCY_KEY), the
// scope key @ the entity version; of the pipelines carrying the key of
// the entity's current version, one whose status is success is the
// receipt, those failed, canceled or skipped are the tries, and one not
// finished makes the scope active (reconcile.RecordOf). The pipeline
// list the backstop reads covers its window only: for a due candidate
// whose version is older than the window's floor, the pipelines created
// between the version's time and the floor are read once per version
// (readOlder: one page of 100, and the variables of each fullsend
// pipeline of it, once per process) and remembered.

// olderPerPage bounds the pipelines read for one entity version older
// than the window (one page).
const olderPerPage = 100

var _ poll.ReceiptKeeper = (*Driver)(nil) // forgepoll.Backstop

// fillRecords sets it.Receipts and it.Active from the pipelines of the
// subject s, for the version of it's entity.
func (d *Driver) fillRecords(it *poll.Item, s subject) {
	if it.Entity == nil || it.Entity.Entity == nil {
		return
	}
	p := d.p
	tail := p.scopeTail(s)
	all := p.keys.attempts(tail)
	for h, as := range p.older.Of(tail, it.Entity.Entity.Version) {
		all[h] = append(all[h], as...)
	}
	forgepoll.Fill(it, tail, all, &p.giveUps, pipelineRef)
}

// pipelineRef is the receipt's run reference.
func pipelineRef(id int64) string { return "gitlab-pipeline/" + strconv.FormatInt(id, 10) }

// attemptOf is pipeline id as an attempt of its key's scope.
func attemptOf(id int64, pp pipe, suffix string) reconcile.Attempt {
	return reconcile.Attempt{ID: id, Suffix: suffix, Done: gitlabpipeline.Finished(pp.Status),
		Succeeded: pp.Status == "success", At: pp.Updated}
}

// attempts is, by harness, the listed pipelines of the scope tail.
func (k *keyIndex) attempts(tail string) map[string][]reconcile.Attempt {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string][]reconcile.Attempt{}
	for id, pp := range k.pipes {
		if h, t, suffix, ok := reconcile.SplitScoped(pp.Key); ok && t == tail {
			out[h] = append(out[h], attemptOf(id, pp, suffix))
		}
	}
	return out
}

// mayChange reports whether the pipelines may say something new to
// scheduled discovery without any listing of the window changing: a
// pipeline was not finished, or a version not given up on may be
// retried.
func (k *keyIndex) mayChange(p *Poller) bool {
	k.mu.Lock()
	ok, tried := map[string]bool{}, map[string]bool{}
	pending := false
	for _, pp := range k.pipes {
		if _, isTime := reconcile.ChangeTime(pp.Key[strings.LastIndex(pp.Key, "@")+1:]); isTime {
			continue
		}
		switch {
		case !gitlabpipeline.Finished(pp.Status):
			pending = true
		case pp.Status == "success":
			ok[pp.Key] = true
		default:
			tried[pp.Key] = true
		}
	}
	k.mu.Unlock()
	if pending {
		return true
	}
	for key := range tried {
		if !ok[key] && !p.giveUps.Has(key) {
			return true
		}
	}
	return false
}

// readOlder reads, once per version, the pipelines created between the
// version's time and the window's floor, and remembers those of the
// scope tail carrying e's version (forgepoll.Older). It reads nothing
// when the version is newer than the floor (the window's pipeline list
// holds all of them).
func (d *Driver) readOlder(ctx context.Context, tail string, e *entity.Entity, floor time.Time) error {
	p := d.p
	return p.older.Read(ctx, tail, e, p.ownIDs(), floor, func(ctx context.Context, from time.Time) (forgepoll.OlderRecords, error) {
		after, before := from.Add(-time.Second).Truncate(time.Second), floor
		desc, by := "desc", "id"
		ps, _, err := p.o.Client.Pipelines.ListProjectPipelines(p.o.Project, &gitlab.ListProjectPipelinesOptions{
			ListOptions: gitlab.ListOptions{PerPage: olderPerPage, Page: 1}, OrderBy: &by, Sort: &desc,
			CreatedAfter: &after, CreatedBefore: &before}, gitlab.WithContext(ctx))
		if err != nil {
			return forgepoll.OlderRecords{}, err
		}
		got := forgepoll.OlderRecords{Attempts: map[string][]reconcile.Attempt{}, Complete: true}
		for _, pi := range ps {
			if err := p.keys.read(ctx, pi); err != nil {
				return forgepoll.OlderRecords{}, err
			}
			p.keys.mu.Lock()
			k := p.keys.byID[pi.ID]
			p.keys.mu.Unlock()
			h, t, suffix, ok := reconcile.SplitScoped(k)
			if !ok || t != tail || suffix != e.Version {
				continue
			}
			pp := pipe{Key: k, Status: pi.Status, Updated: timeOf(pi.UpdatedAt)}
			got.Complete = got.Complete && gitlabpipeline.Finished(pp.Status)
			got.Attempts[h] = append(got.Attempts[h], attemptOf(pi.ID, pp, suffix))
		}
		return got, nil
	})
}
