package jirapoll

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/jirakey"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
)

// SeedReport is what Seed did.
type SeedReport struct {
	Matched int // issues the queries matched
	Seeded  int // issues that got a lastCheck
	Failed  int // writes that failed (logged)
}

// Seed writes a lastCheck on every issue the queries match that has none,
// so that a first deployment against an existing backlog does not
// dispatch every issue's history. The value is the issue's last update as
// Jira reports it (Jira's clock, not this machine's), so everything that
// happened so far counts as seen and nothing after it is lost. Issues with
// a lastCheck, even a corrupt one, are left alone.
func (d *Driver) Seed(ctx context.Context) (SeedReport, error) {
	var rep SeedReport
	seen := map[string]bool{}
	var todo []jira.Issue
	for qi, q := range d.o.Queries {
		req := jira.SearchRequest{JQL: q, Fields: []string{"updated", "created"}, Properties: []string{d.checkKey}, MaxResults: 100}
		issues, err := d.o.API.Search(ctx, req, 0)
		if err != nil {
			return rep, queryError(qi, q, err)
		}
		for _, is := range issues {
			if seen[is.Key] {
				continue
			}
			seen[is.Key] = true
			rep.Matched++
			if len(is.Properties[d.checkKey]) == 0 {
				todo = append(todo, is)
			}
		}
	}
	var mu sync.Mutex
	var stop firstErr
	each(d.o.Concurrency, todo, func(is jira.Issue) {
		if ctx.Err() != nil || stop.get() != nil {
			return
		}
		ts := is.Fields.Updated.Time
		if ts.IsZero() {
			ts = d.o.Now()
		}
		err := d.o.API.SetProperty(ctx, is.Key, d.checkKey, lastCheckValue(poll.Checkpoint{At: ts}, ""))
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			rep.Seeded++
		case jira.IsAuth(err):
			stop.set(fmt.Errorf("writing lastCheck on %s: %w: %w", is.Key, poll.ErrAuth, err))
		case !jira.IsNotFound(err):
			rep.Failed++
			d.o.Log.Error("could not seed lastCheck", "issue", is.Key, "error", err.Error())
		}
	})
	if err := stop.get(); err != nil {
		return rep, err
	}
	return rep, ctx.Err()
}

// ErrNoIssue and ErrNoLock are the "nothing to cancel" outcomes of Cancel.
var (
	ErrNoIssue = errors.New("no such issue")
	ErrNoLock  = errors.New("no poll lock on the issue")
)

// CancelReport is what Cancel did.
type CancelReport struct {
	Issue    string
	Property string
	Lock     *polllock.Lock // nil when the value was corrupt
	Corrupt  string         // why the lock value could not be read
	Runs     []RunOutcome
	Deleted  bool
}

// RunOutcome is the cancellation result of one recorded run.
type RunOutcome struct {
	Ref     plan.Ref
	Outcome string // what the canceller reported, or why nothing was done
	Err     error
}

// Canceller cancels one recorded run (output.Canceller's method).
type Canceller func(ctx context.Context, ref plan.Ref) (string, error)

// Cancel removes the poll lock of issueKey, first cancelling each run it
// records through cancel (nil: runs are only reported). lastCheck is never
// touched, so the changes the runs were about stay handled; a later change
// starts a new run. Unknown issue: ErrNoIssue; no lock: ErrNoLock.
func (d *Driver) Cancel(ctx context.Context, issueKey string, cancel Canceller) (CancelReport, error) {
	rep := CancelReport{Issue: issueKey, Property: d.lockKey}
	if !jirakey.ValidIssue(issueKey) {
		return rep, fmt.Errorf("--issue %q: not a Jira issue key (want e.g. PROJ-123)", issueKey)
	}
	raw, found, err := d.o.API.GetProperty(ctx, issueKey, d.lockKey)
	if err != nil {
		return rep, apiStop("reading the poll lock on "+issueKey, err)
	}
	if !found {
		if exists, err := d.exists(ctx, issueKey); err != nil {
			return rep, err
		} else if !exists {
			return rep, fmt.Errorf("%s: %w", issueKey, ErrNoIssue)
		}
		return rep, fmt.Errorf("%s (%s): %w", issueKey, d.lockKey, ErrNoLock)
	}
	if l, err := polllock.Parse(raw); err != nil {
		rep.Corrupt = err.Error()
	} else {
		rep.Lock = &l
		runs, err := d.runsOf(ctx, issueKey, l)
		if err != nil {
			return rep, err
		}
		for _, ref := range runs {
			o := RunOutcome{Ref: ref, Outcome: "not cancelled: the output driver cannot cancel runs"}
			if cancel != nil {
				o.Outcome, o.Err = cancel(ctx, ref)
			}
			rep.Runs = append(rep.Runs, o)
		}
	}
	if _, err := d.o.API.DeleteProperty(ctx, issueKey, d.lockKey); err != nil && !jira.IsNotFound(err) {
		return rep, apiStop("removing the poll lock on "+issueKey, err)
	}
	rep.Deleted = true
	return rep, nil
}

// runsOf is the runs of lock l on issueKey (lastcheck.LastCheck.RunsOf):
// the entries runs claimed, and while one is unclaimed, those lastCheck
// records under its id. A corrupt lastCheck records none.
func (d *Driver) runsOf(ctx context.Context, issueKey string, l polllock.Lock) ([]plan.Ref, error) {
	if !l.Unclaimed() {
		return l.Runs, nil
	}
	raw, found, err := d.o.API.GetProperty(ctx, issueKey, d.checkKey)
	if err != nil {
		return nil, apiStop("reading lastCheck on "+issueKey, err)
	}
	if !found {
		return nil, nil
	}
	lc, err := lastcheck.Parse(raw)
	if err != nil {
		return nil, nil
	}
	return lc.RunsOf(l), nil
}

// exists tells a missing issue from a missing property with a search
// (Jira rejects `key in (X)` for an unknown key with a 400).
func (d *Driver) exists(ctx context.Context, key string) (bool, error) {
	jql, err := jira.KeyIn([]string{key})
	if err != nil {
		return false, err
	}
	found, err := d.o.API.Search(ctx, jira.SearchRequest{JQL: jql, Fields: []string{"updated"}, MaxResults: 1}, 1)
	switch {
	case jira.IsBadRequest(err):
		return false, nil
	case err != nil:
		return false, apiStop("looking up "+key, err)
	}
	return len(found) > 0, nil
}
