// Package jirapoll is the `jira-poll` input driver (see ARCHITECTURE.md):
// it discovers changed Jira issues through the enhanced search with the
// lock and lastCheck issue properties inline, coordinates pollers with
// write-then-verify locks stored on the issues, and maps comments,
// changelog entries and issue creation to NormalizedEvents. The cycle
// itself (decide, coalesce, dispatch, checkpoint) is package poll.
//
// Property keys are namespaced by the target repository
// (polllock.Keys): fullsend.poll.{owner}.{repo}.lock and .lastCheck.
// The poll lock handed to runs names its location as
// "<ISSUE-KEY>/<lock property key>" (polllock.FormatRef). The lock
// protocol itself (documents, references, run entries, staleness) is
// package polllock.
package jirapoll

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
)

// Name is the input driver type.
const Name = drivername.JiraPoll

// Defaults used when an Options field is zero.
const (
	DefaultM           = 50
	DefaultMaxPages    = 10
	DefaultConcurrency = 4
)

// maxReconcile is how many issue ids Jira reconciles per search.
const maxReconcile = 50

// Options configure a Driver.
type Options struct {
	API JiraAPI
	// Usage reports cumulative API usage (e.g. from *jira.Client); nil
	// reports zeros.
	Usage func() poll.Usage
	// SiteURL is the Jira site for browse links, e.g. https://acme.atlassian.net.
	SiteURL string
	// Repo is the target repository; it namespaces the property keys.
	Repo string
	// Project is used for role lookups; empty uses each issue's project.
	Project string
	// Queries are the JQL queries that define candidates.
	Queries []string
	// M is the search page size (candidates per page); MaxPages bounds the
	// pages read per query per cycle. A further page is read only while
	// fewer than N eligible issues were found.
	M, MaxPages int
	// N is the number of issues locked per cycle (sizes the page rule).
	N int
	// StaleThreshold: a lock older than this is abandoned (0:
	// config.DefaultStaleThreshold).
	StaleThreshold time.Duration
	// PendingTTL: an unclaimed lock older than this no longer blocks the
	// issue (0: config.DefaultPendingTTL; at most StaleThreshold).
	PendingTTL time.Duration
	// Concurrency bounds per-issue calls made in parallel.
	Concurrency int
	// PollerID is this poller's UUID; the locks it takes carry lock ids
	// made from it (polllock.NewLockID).
	PollerID string
	// CursorAPI stores the shared discovery cursor (nil: no cursor, every
	// discovery reads newest first). CursorMode is where: CursorUser (the
	// default, a property of the poller's own account, CursorAccount or
	// else /myself), CursorProject (a property of Project) or CursorOff.
	CursorAPI     CursorAPI
	CursorMode    string
	CursorAccount string
	// CursorMargin: how far behind its own search start this poller keeps
	// the cursor (0: DefaultCursorMargin).
	CursorMargin time.Duration
	// BotAccounts are the tool's own accounts besides the client's
	// (authorization.bot_accounts), for entities (Entities).
	BotAccounts []string
	// Entities says the cycles resolve entities (some enabled harness
	// lists jira among its entity sources): discovery reads the entity's
	// fields from the first cycle on. Without it, from the cycle after the
	// first Entities.
	Entities bool
	// Now is Jira's clock (a trackerclock.Clock's Now; nil: time.Now):
	// every time the driver compares with Jira's times or writes for
	// other hosts to compare (lock ts, lastCheck, the cursor, quarantine
	// records) is on it.
	Now func() time.Time
	// ClockKnown reports whether Now has been corrected by an answer of
	// Jira's yet (trackerclock.Clock.Known; nil: always). A fresh process
	// whose first call is the discovery search (the account and roles came
	// from the state directory) judges what that search shows only once
	// its answer has set the clock.
	ClockKnown func() bool
	Log        *slog.Logger
}

// Driver is the jira-poll driver. It implements poll.Driver; one cycle at
// a time may use it.
type Driver struct {
	o                 Options
	lockKey, checkKey string
	receiptsKey       string // receipts.Key: read inline, written by ReceiptKeeper

	cur              cursorState  // Discover's alone
	ent              *entityStage // the entity stage (entities.go)
	keyset           keysetState  // whether issue ids compare as numbers (keyset.go)
	poll.SweepSwitch              // off until the cycle enables scheduled discovery (Sweeper)

	mu      sync.Mutex
	written []int64                // ids of issues this poller wrote recently, newest last
	issues  map[string]*issueState // the latest discovery's issues, by key
	sweep   sweepState             // scheduled discovery's sweep (sweep.go)
	reads   map[string]lockRead    // the lock each item to take over was read with (takeover.go)
}

var _ poll.Driver = (*Driver)(nil)

// New validates opts and returns a Driver.
func New(o Options) (*Driver, error) {
	if o.API == nil {
		return nil, fmt.Errorf("%s: no Jira API client", Name)
	}
	if o.Repo == "" {
		return nil, fmt.Errorf("%s: no target repo (config repo) to namespace the lock properties", Name)
	}
	if o.PollerID == "" {
		return nil, fmt.Errorf("%s: no poller id", Name)
	}
	if o.SiteURL == "" {
		return nil, fmt.Errorf("%s: no Jira site URL", Name)
	}
	o.SiteURL = strings.TrimRight(o.SiteURL, "/")
	if o.Project != "" && !jira.ValidProjectKey(o.Project) {
		return nil, fmt.Errorf("%s: project %q is not a Jira project key", Name, o.Project)
	}
	if o.M <= 0 {
		o.M = DefaultM
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.N <= 0 {
		o.N = poll.DefaultN
	}
	if o.StaleThreshold <= 0 {
		o.StaleThreshold = config.DefaultStaleThreshold
	}
	if o.PendingTTL <= 0 {
		o.PendingTTL = config.DefaultPendingTTL
	}
	o.PendingTTL = min(o.PendingTTL, o.StaleThreshold)
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if err := checkCursor(&o); err != nil {
		return nil, err
	}
	d := &Driver{o: o, ent: newEntityStage(o)}
	d.lockKey, d.checkKey = polllock.Keys(o.Repo)
	d.receiptsKey = receipts.Key(o.Repo)
	d.cur.key = cursor.Key(o.Repo)
	return d, nil
}

// TrackerNow implements poll.TrackerClock: Jira's time (Options.Now).
func (d *Driver) TrackerNow() time.Time { return d.o.Now() }

// Name implements poll.Driver.
func (d *Driver) Name() string { return Name }

// Keys returns the lock and lastCheck property keys this driver uses.
func (d *Driver) Keys() (lock, lastCheck string) { return d.lockKey, d.checkKey }

// Usage implements poll.Driver.
func (d *Driver) Usage() poll.Usage {
	if d.o.Usage == nil {
		return poll.Usage{}
	}
	return d.o.Usage()
}

// PollLock implements poll.Driver.
func (d *Driver) PollLock(it *poll.Item) *plan.PollLock {
	return &plan.PollLock{ID: d.issue(it.ID).lockID, Driver: Name, Property: polllock.FormatRef(it.ID, d.lockKey)}
}

// remember records that this poller wrote to issue id, so that the next
// discoveries read it consistently (Jira's reconcileIssues).
func (d *Driver) remember(id int64) {
	if id <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, x := range d.written {
		if x == id {
			d.written = append(d.written[:i], d.written[i+1:]...)
			break
		}
	}
	d.written = append(d.written, id)
	if len(d.written) > maxReconcile {
		d.written = d.written[len(d.written)-maxReconcile:]
	}
}

func (d *Driver) recent() []int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]int64(nil), d.written...)
}

// checkCursor validates and defaults the cursor options. A query with its
// own ORDER BY cannot be read from a cursor: the cursor is then off.
func checkCursor(o *Options) error {
	switch o.CursorMode {
	case "":
		o.CursorMode = CursorUser
	case CursorUser, CursorOff:
	case CursorProject:
		if o.Project == "" {
			return fmt.Errorf("%s: cursor %q needs a project (config project) to store it on", Name, o.CursorMode)
		}
	default:
		return fmt.Errorf("%s: cursor %q: want %s, %s or %s", Name, o.CursorMode, CursorUser, CursorProject, CursorOff)
	}
	if o.CursorMargin <= 0 {
		o.CursorMargin = DefaultCursorMargin
	}
	for _, q := range o.Queries {
		if _, order := jira.SplitOrderBy(q); order != "" && o.CursorAPI != nil && o.CursorMode != CursorOff {
			o.Log.Info("a query has its own ORDER BY: the discovery cursor is off", "query", q)
			o.CursorMode = CursorOff
		}
	}
	return nil
}

func each[T any](n int, xs []T, f func(T)) { poll.Each(n, xs, f) }
