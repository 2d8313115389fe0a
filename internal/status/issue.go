package status

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// statusPollerID stands in for a poller id in the read-only driver that
// --issue uses: it never writes, so the id is never recorded.
const statusPollerID = "fullsend-status"

// IssueReport is `--issue`: one work item as a cycle would see it now.
type IssueReport struct {
	Item        string       `json:"item"`
	Summary     string       `json:"summary"`
	URL         string       `json:"url"`
	Updated     time.Time    `json:"updated"`
	Lock        *Lock        `json:"lock"`
	LastCheck   *LastCheck   `json:"last_check"`
	Quarantined []Quarantine `json:"quarantined"`
	Failing     []Failing    `json:"failing"`
	Deferred    []Deferred   `json:"deferred"`
	// Changes are those after the checkpoint, with the dry-run decision
	// of each; WouldDispatch the runs a cycle would start (the newest
	// matching change per harness). Held says why a cycle would leave
	// the item alone now.
	Changes       []Change   `json:"changes"`
	WouldDispatch []WouldRun `json:"would_dispatch"`
	Held          string     `json:"held,omitempty"`
	Error         string     `json:"error,omitempty"` // detection failed for the item
	Runs          []plan.Ref `json:"runs"`            // the runs its lock records
	// Steers are the follow-ups the tool's replies record as delivered
	// into a running agent, with the run each reached, newest first
	// (steers.go); absent when no harness steers.
	Steers      []steer.Delivered `json:"steers,omitempty"`
	SteersError string            `json:"steers_error,omitempty"`
}

// LastCheck is the item's checkpoint.
type LastCheck struct {
	TS      time.Time            `json:"ts"`
	Retry   map[string]time.Time `json:"retry,omitempty"`
	Corrupt string               `json:"corrupt,omitempty"`
}

// inspect reads the --issue item: one search with the three properties
// inline, then jirapoll's change detection, its entity stage when an
// enabled harness evaluates Jira entities, and a dry run of the decision.
func (s *snapshotter) inspect(ctx context.Context, ji *jiraInput, now time.Time) (*IssueReport, error) {
	drv, err := jirapoll.New(jirapoll.Options{API: ji.client, SiteURL: ji.id.Connection.BaseURL, Repo: s.cfg.Repo,
		Project: ji.id.Project, Queries: ji.id.Queries, StaleThreshold: ji.stale, PollerID: statusPollerID,
		Now: func() time.Time { return now }, Log: s.o.Log})
	if err != nil {
		return nil, config.Invalid(err)
	}
	it, is, err := drv.Inspect(ctx, s.o.Issue, ji.keys.quarantine)
	if errors.Is(err, jirapoll.ErrNoIssue) {
		return nil, config.Invalid(fmt.Errorf("--issue %s: no such issue (or the account cannot see it)", s.o.Issue))
	}
	if err != nil {
		return nil, err
	}
	r := s.issueState(ji, is, now)
	s.steers(ctx, ji, r)
	if it.Err() != nil {
		r.Error = it.Err().Error()
		return r, nil
	}
	if len(s.reg.EntityHarnesses(entity.SystemJira)) > 0 {
		// As a cycle's entity stage does: the item's entity, for the
		// entity-source harnesses (reads only: the issue, its comments and
		// changelog, the project's roles).
		if err := poll.ResolveEntities(ctx, drv, []*poll.Item{it}); err != nil {
			return nil, err
		}
	}
	if err := s.decide(r, it); err != nil {
		return nil, err
	}
	return r, nil
}

// issueState is what the item's properties say.
func (s *snapshotter) issueState(ji *jiraInput, is jira.Issue, now time.Time) *IssueReport {
	r := &IssueReport{Item: is.Key, Summary: is.Fields.Summary, URL: ji.id.Connection.BaseURL + "/browse/" + is.Key,
		Updated: is.Fields.Updated.UTC(), Runs: []plan.Ref{}, Changes: []Change{}, WouldDispatch: []WouldRun{}}
	var in Input
	ji.read(&in, is, now)
	r.Quarantined, r.Failing, r.Deferred = nonNil(in.Quarantined), nonNil(in.Failing), nonNil(in.Deferred)
	if len(in.Locks) > 0 {
		l := in.Locks[0]
		r.Lock, r.Runs = &l, l.Runs
		if !l.Stale {
			r.Held = fmt.Sprintf("locked (%s by %s): cycles skip it until the lock is released or goes stale", l.Phase, l.Owner)
		}
	}
	if raw := is.Properties[ji.keys.check]; len(raw) > 0 {
		lc, err := lastcheck.Parse(raw)
		r.LastCheck = &LastCheck{TS: lc.TS.UTC()}
		if err != nil {
			r.LastCheck.Corrupt = err.Error()
		}
		for _, d := range r.Deferred {
			if d.Kind == DeferredRetry {
				if r.LastCheck.Retry == nil {
					r.LastCheck.Retry = map[string]time.Time{}
				}
				r.LastCheck.Retry[d.Harness] = d.Position
			}
		}
	}
	return r
}

func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
