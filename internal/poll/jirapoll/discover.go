package jirapoll

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// searchFields are the issue fields discovery and detection read.
var searchFields = []string{"summary", "labels", "created", "updated", "status", "reporter", "creator", "project"}

// issueState is the driver's per-item data.
type issueState struct {
	issue jira.Issue
	id    int64
}

func stateOf(it *poll.Item) *issueState { return it.Data.(*issueState) }

// Discover implements poll.Driver: it runs every query newest-updated
// first, with the lock and lastCheck properties inline, so that locked and
// unchanged issues cost no further call. A query without its own ORDER BY
// is paged by `updated <= <epoch ms>` until poll.Spread×N eligible issues
// were found, a page is not full, or MaxPages pages were read.
func (d *Driver) Discover(ctx context.Context) (*poll.Discovery, error) {
	now := d.o.Now()
	disc := &poll.Discovery{}
	seen := map[string]bool{}
	target := poll.Spread * d.o.N
	reconcile := d.recent()
	for qi, q := range d.o.Queries {
		where, order := jira.SplitOrderBy(q)
		keyset := order == ""
		if keyset {
			order = "ORDER BY updated DESC"
		}
		var floor time.Time
		for page := 0; page < d.o.MaxPages; page++ {
			jql := jira.And(where)
			if !floor.IsZero() {
				jql = jira.And(where, "updated <= "+jira.Millis(floor))
			}
			req := jira.SearchRequest{JQL: jql + " " + order, Fields: searchFields,
				Properties: []string{d.lockKey, d.checkKey}, MaxResults: d.o.M, ReconcileIssues: reconcile}
			issues, err := d.o.API.Search(ctx, req, d.o.M)
			if err != nil {
				return nil, queryError(qi, q, err)
			}
			fresh := 0
			for _, is := range issues {
				if seen[is.Key] {
					continue
				}
				seen[is.Key] = true
				fresh++
				disc.Candidates++
				d.classify(is, now, disc)
			}
			if !keyset || len(issues) < d.o.M || fresh == 0 || len(disc.Eligible) >= target {
				break
			}
			floor = issues[len(issues)-1].Fields.Updated.Time
		}
	}
	return disc, nil
}

// queryError names the query and marks rejections and auth failures.
func queryError(i int, q string, err error) error {
	switch {
	case jira.IsBadRequest(err):
		return fmt.Errorf("query %d %q: %w: %w", i+1, q, poll.ErrQuery, err)
	case jira.IsAuth(err):
		return fmt.Errorf("query %d %q: %w: check the Jira credentials (connection.email_env/token_env) and their permissions: %w", i+1, q, poll.ErrAuth, err)
	}
	return fmt.Errorf("query %d %q: %w", i+1, q, err)
}

// classify adds is to the eligible or stale list of disc.
func (d *Driver) classify(is jira.Issue, now time.Time, disc *poll.Discovery) {
	id, _ := strconv.ParseInt(is.ID, 10, 64)
	it := &poll.Item{ID: is.Key, Cutoff: is.Fields.Updated.Time, Data: &issueState{issue: is, id: id}}
	locked, stale, corrupt := d.lockState(is.Key, is.Properties[d.lockKey], now)
	base, bad := d.checkpoint(is.Key, is.Properties[d.checkKey], now)
	if corrupt {
		disc.Corrupt++
	}
	if bad {
		disc.Corrupt++
	}
	it.Base = base
	it.StaleLock = stale
	it.Waiting = base.Min()
	if it.Waiting.IsZero() {
		it.Waiting = is.Fields.Created.Time
	}
	changed := base.At.IsZero() || it.Cutoff.After(base.At) || base.Pending()
	switch {
	case locked:
	case changed:
		disc.Eligible = append(disc.Eligible, it)
	case stale:
		disc.Stale = append(disc.Stale, it)
	}
}

// lockState classifies a lock value: locked (held and fresh), stale
// (removable: old, far in the future, or corrupt) and corrupt.
func (d *Driver) lockState(key string, raw json.RawMessage, now time.Time) (locked, stale, corrupt bool) {
	if len(raw) == 0 {
		return false, false, false
	}
	l, err := polllock.Parse(raw)
	if err != nil {
		d.o.Log.Warn("corrupt poll lock value; treated as stale", "issue", key, "property", d.lockKey, "error", err.Error())
		return false, true, true
	}
	if l.Stale(now, d.o.StaleThreshold) {
		return false, true, false
	}
	return true, false, false
}

// checkpoint decodes a lastCheck value. A corrupt value, or one further in
// the future than the stale threshold, falls back to the issue's creation
// (bad=true, logged): that may dispatch again, but never loses a change.
func (d *Driver) checkpoint(key string, raw json.RawMessage, now time.Time) (cp poll.Checkpoint, bad bool) {
	if len(raw) == 0 {
		return poll.Checkpoint{}, false
	}
	lc, err := polllock.ParseLastCheck(raw)
	if err == nil && lc.TS.After(now.Add(d.o.StaleThreshold)) {
		err = fmt.Errorf("lastCheck: %s is in the future", lc.TS.UTC().Format(time.RFC3339))
	}
	if err != nil {
		d.o.Log.Warn("corrupt lastCheck value; using the issue's creation as baseline", "issue", key, "property", d.checkKey, "error", err.Error())
		return poll.Checkpoint{}, true
	}
	cp = poll.Checkpoint{At: lc.TS}
	for h, t := range lc.Harness {
		if t.Before(lc.TS) {
			if cp.Retry == nil {
				cp.Retry = map[string]time.Time{}
			}
			cp.Retry[h] = t
		}
	}
	return cp, false
}

// lastCheckValue encodes a checkpoint as a lastCheck value.
func lastCheckValue(cp poll.Checkpoint) json.RawMessage {
	lc := polllock.LastCheck{TS: cp.At.UTC(), Harness: nil}
	for h, t := range cp.Retry {
		if lc.Harness == nil {
			lc.Harness = map[string]time.Time{}
		}
		lc.Harness[h] = t.UTC()
	}
	b, _ := json.Marshal(lc)
	return b
}
