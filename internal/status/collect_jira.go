package status

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/quarantine"
)

// keys are the three issue properties of a repository's pollers.
type keys struct{ lock, check, quarantine string }

func keysOf(repo string) keys {
	k := keys{quarantine: quarantine.Key(repo)}
	k.lock, k.check = polllock.Keys(repo)
	return k
}

// jiraInput is one jira-poll entry with its own client.
type jiraInput struct {
	id     config.InputDriver
	client *jira.Client
	keys   keys
	stale  time.Duration
}

// newJiraInput builds the client of poll.input_drivers[i]. Missing
// credentials are config.Invalid.
func (s *snapshotter) newJiraInput(i int) (*jiraInput, error) {
	id := s.cfg.Poll.InputDrivers[i]
	opts, err := config.JiraOptions(id, s.o.Getenv, s.o.Log)
	if err != nil {
		return nil, err
	}
	client, err := jira.New(opts)
	if err != nil {
		return nil, config.Invalid(err)
	}
	stale := id.Lock.StaleThreshold
	if stale <= 0 {
		stale = config.DefaultStaleThreshold
	}
	return &jiraInput{id: id, client: client, keys: keysOf(s.cfg.Repo), stale: stale}, nil
}

// collectJira fills in from one search over the configured queries, with
// the lock, lastCheck and quarantine properties inline. Jira indexes an
// issue property for JQL only when an app declares it, so the search
// cannot select on the properties: it reads the newest-updated
// candidates (one page of Limit) and keeps those that carry something.
func (s *snapshotter) collectJira(ctx context.Context, i int, in Input, rep *Report) (Input, int, error) {
	ji, err := s.newJiraInput(i)
	if err != nil {
		return in, 0, err
	}
	calls := func() int { return ji.client.CallsTotal() }
	if s.o.Issue != "" {
		// Only the item is read: the lists are unknown (null), not empty.
		in.Locks, in.Quarantined, in.Failing, in.Deferred = nil, nil, nil, nil
		if rep.Issue == nil {
			rep.Issue, err = s.inspect(ctx, ji, rep.At)
		}
		return in, calls(), ji.authErr(err)
	}
	req := jira.SearchRequest{JQL: anyOf(ji.id.Queries) + " ORDER BY updated DESC", Fields: []string{"summary", "updated"},
		Properties: []string{ji.keys.lock, ji.keys.check, ji.keys.quarantine}, MaxResults: s.o.Limit}
	issues, err := ji.client.Search(ctx, req, s.o.Limit)
	if err != nil {
		return in, calls(), ji.authErr(fmt.Errorf("searching the configured queries: %w", err))
	}
	in.Scanned, in.Truncated = len(issues), len(issues) >= s.o.Limit
	now := rep.At
	for _, is := range issues {
		ji.read(&in, is, now)
	}
	{
		c, found, err := s.o.Cursor(ctx, ji.client, s.cfg.Repo, ji.id)
		if err != nil {
			return in, calls(), ji.authErr(fmt.Errorf("reading the discovery cursor: %w", err))
		}
		if found {
			c.LagSec = now.Sub(c.At).Seconds()
			in.Cursor = &c
		}
	}
	in.RateLimit = budgetOf(ji.client.Budget())
	return in, calls(), nil
}

// anyOf joins the queries (without their ORDER BY) into one JQL.
func anyOf(queries []string) string {
	parts := make([]string, 0, len(queries))
	for _, q := range queries {
		where, _ := jira.SplitOrderBy(q)
		parts = append(parts, "("+strings.TrimSpace(where)+")")
	}
	return strings.Join(parts, " OR ")
}

// read adds what issue is carries to in.
func (ji *jiraInput) read(in *Input, is jira.Issue, now time.Time) {
	var lc lastcheck.LastCheck
	if raw := is.Properties[ji.keys.check]; len(raw) > 0 {
		var err error
		if lc, err = lastcheck.Parse(raw); err == nil {
			in.Deferred = append(in.Deferred, deferredOf(is.Key, lc)...)
		}
	}
	if l, ok := ji.lockOf(is.Key, is.Properties[ji.keys.lock], lc, now); ok {
		in.Locks = append(in.Locks, l)
	}
	if raw := is.Properties[ji.keys.quarantine]; len(raw) > 0 {
		if q, err := quarantine.Parse(raw); err == nil {
			in.Quarantined = append(in.Quarantined, quarantinedOf(is.Key, q)...)
			in.Failing = append(in.Failing, failingOf(is.Key, q)...)
		}
	}
}

// lockOf reads a lock value (ok false: none); its runs are those it
// records, else those lastCheck lc records under its id.
func (ji *jiraInput) lockOf(item string, raw json.RawMessage, lc lastcheck.LastCheck, now time.Time) (Lock, bool) {
	if len(raw) == 0 {
		return Lock{}, false
	}
	l, err := polllock.Parse(raw)
	if err != nil {
		return Lock{Item: item, Stale: true, Corrupt: err.Error(), Runs: []plan.Ref{}}, true
	}
	runs := lc.RunsOf(l)
	if runs == nil {
		runs = []plan.Ref{}
	}
	return Lock{Item: item, Phase: l.Phase, Owner: l.ID, Written: l.TS.UTC(), AgeSec: now.Sub(l.TS).Seconds(),
		Stale: l.Stale(now, ji.stale), Runs: runs}, true
}

// deferredOf lists the retry positions and intents of a lastCheck.
func deferredOf(item string, lc lastcheck.LastCheck) []Deferred {
	var out []Deferred
	for h, t := range lc.Harness {
		if t.Before(lc.TS) {
			out = append(out, Deferred{Item: item, Harness: h, Kind: DeferredRetry, Position: t.UTC()})
		}
	}
	for h, it := range lc.Intents {
		out = append(out, Deferred{Item: item, Harness: h, Kind: DeferredIntent, Position: it.Change.UTC(), Key: it.Key})
	}
	slices.SortFunc(out, func(a, b Deferred) int {
		return strings.Compare(a.Harness+a.Kind, b.Harness+b.Kind)
	})
	return out
}

func quarantinedOf(item string, q quarantine.Quarantine) []Quarantine {
	var out []Quarantine
	for _, e := range q.Entries {
		out = append(out, Quarantine{Item: item, Change: e.Change, Harness: e.Harness, At: e.At.UTC(), TS: e.TS.UTC(),
			Attempts: e.Attempts, Reason: e.Reason})
	}
	return out
}

func failingOf(item string, q quarantine.Quarantine) []Failing {
	var out []Failing
	for h, a := range q.Attempts {
		out = append(out, Failing{Item: item, Harness: h, Change: a.Change, Attempts: a.Count, TS: a.TS.UTC(), Reason: a.Reason})
	}
	slices.SortFunc(out, func(a, b Failing) int { return strings.Compare(a.Harness, b.Harness) })
	return out
}

// budgetOf is the budget Jira last reported, nil when it sent none.
func budgetOf(b jira.Budget) *RateLimit {
	if !b.Known {
		return nil
	}
	r := &RateLimit{Limit: b.Limit, Remaining: b.Remaining}
	if !b.Reset.IsZero() {
		t := b.Reset.UTC()
		r.Reset = &t
	}
	return r
}

// authErr turns refused credentials into a configuration error that
// names the variables to check (never their values).
func (ji *jiraInput) authErr(err error) error {
	if err == nil || !jira.IsAuth(err) {
		return err
	}
	c := ji.id.Connection
	return config.Invalid(fmt.Errorf("%s refused the credentials ($%s/$%s; $%s alone means Bearer auth): %w: %w",
		c.BaseURL, c.EmailEnv, c.TokenEnv, c.TokenEnv, errAuth, err))
}
