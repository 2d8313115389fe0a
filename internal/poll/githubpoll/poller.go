// Package githubpoll is the github-poll backstop: it re-reads a GitHub
// repository's recent activity (issues and pull requests updated within
// a window, their comments, label events and reviews) and hands every
// change that no run of the run workflow records yet to the poll cycle,
// so that a change the event workflow (gha-event) missed still runs,
// once. The dispatched runs carry the change's idempotency key in their
// title and are the record (what it keeps in the state directory only
// saves requests, state.go); concurrent
// dispatchers settle duplicates through ghadispatch.Settle. Discovery uses
// conditional requests, so an idle cycle costs three 304 answers and no
// rate-limit points. With scheduled discovery on, it also sweeps the
// open issues and pull requests and takes the runs titled with a
// scheduled run's key (scope key @ entity version) as its receipts
// (sweep.go, records.go, over package forgepoll). See ARCHITECTURE.md
// ("GitHub backstop") and docs/github.md ("Backstop: github-poll").
package githubpoll

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

// Name is the driver name.
const Name = drivername.GitHubPoll

// DefaultLookback is how far back a poller that starts reads activity.
const DefaultLookback = 2 * time.Hour

// DefaultGrace is the Grace of a github-poll entry that sets none: the event
// workflow normally dispatches a change within a minute.
const DefaultGrace = config.DefaultPollGrace

// maxPages bounds every listing (100 per page).
const maxPages = 50

// Options configures New.
type Options struct {
	Client *gogithub.Client
	Repo   string // owner/name (config `repo`)
	// Workflow is the run workflow whose runs are the record (default
	// fullsend-run.yml, config outputs.gha-dispatch.workflow).
	Workflow string
	// Lookback is the window a starting poller reads; the window's floor
	// then stays put (so that the listings' ETags hold) until the window
	// is more than twice as long, and then moves to now - Lookback.
	Lookback time.Duration
	// Grace leaves changes younger than it to the event workflow (zero:
	// none; FromConfig: the entry's grace). Whatever it is, a change is
	// taken only once its second is complete on GitHub's clock
	// (changepos.LastComplete).
	Grace time.Duration
	// Now is GitHub's clock (a trackerclock.Clock's Now; nil: time.Now):
	// the window and the grace cutoff are compared with GitHub's times.
	Now func() time.Time
	Log *slog.Logger
	// State is where the poller keeps what makes a new process's idle
	// cycles cheap (state.go; nil: nowhere).
	State *pollstate.Store
}

// Poller reads one repository's activity. It is used by one cycle at a
// time; concurrent pollers coordinate through the run list.
type Poller struct {
	o           Options
	owner, name string
	cache       *condCache
	policy      github.Policy

	mu      sync.Mutex
	floor   time.Time         // the window's floor (the listings' since)
	handled map[int]time.Time // issue number → updated_at fully handled
	keys    *runIndex
	account forgepoll.Account // the tool's own, as a credential showed it
	// scheduled discovery (records.go, sweep.go)
	older   forgepoll.Older         // tail@version → its runs older than the window
	giveUps forgepoll.GiveUps       // the versions given up on
	sweepAt int                     // the next page of the open items' sweep (1-based)
	ents    forgepoll.Entities[int] // swept entities by number, at their updated_at
	fetched atomic.Int64            // listings answered with content (fetchedCount)
}

// New validates o and returns a Poller.
func New(o Options) (*Poller, error) {
	if o.Client == nil {
		return nil, errors.New("github-poll: no GitHub client")
	}
	owner, name, err := github.SplitRepo(o.Repo)
	if err != nil {
		return nil, errors.New("github-poll: repo: " + err.Error() + ": set `repo` in config.yaml or $GITHUB_REPOSITORY")
	}
	if o.Lookback <= 0 {
		o.Lookback = DefaultLookback
	}
	if o.Workflow == "" {
		o.Workflow = ghadispatch.DefaultWorkflow
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	p := &Poller{o: o, owner: owner, name: name, cache: &condCache{entries: map[string]condEntry{}},
		policy:  github.Policy{MaxRetries: 2, BaseBackoff: 500 * time.Millisecond, MaxBackoff: 5 * time.Second, Idempotent: true},
		handled: map[int]time.Time{}}
	p.keys = newRunIndex(p)
	p.restore()
	return p, nil
}

// Resolution is the precision of GitHub's timestamps (created_at,
// updated_at, submitted_at of issues, comments, events, reviews and
// runs): the second.
const Resolution = time.Second

// window returns the floor of this cycle's window and the cutoff: the
// grace period's, and never within the second GitHub's clock is in
// (changepos.LastComplete), whose changes are not all made yet.
// The floor moves only when the window has grown to twice Lookback.
func (p *Poller) window() (floor, cutoff time.Time) {
	now := p.o.Now().UTC()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.floor.IsZero() || now.Sub(p.floor) > 2*p.o.Lookback {
		p.floor = now.Add(-p.o.Lookback).Truncate(time.Second)
		p.cache.reset() // the listings' URLs name the floor: the old answers are of no use
	}
	for n, t := range p.handled {
		if t.Before(p.floor) {
			delete(p.handled, n)
		}
	}
	return p.floor, forgepoll.MinTime(now.Add(-p.o.Grace), changepos.LastComplete(now, Resolution))
}
