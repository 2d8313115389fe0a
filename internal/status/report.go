package status

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Report is one snapshot of what the pollers are doing; `-o json` prints
// it as is, so its field names are stable (docs/cli.md, "fullsend status").
type Report struct {
	At       time.Time    `json:"at"`
	Inputs   []Input      `json:"inputs"`
	Issue    *IssueReport `json:"issue,omitempty"`
	APICalls int          `json:"api_calls"` // the Jira calls this snapshot made
}

// Input is what one configured poll input driver shows.
type Input struct {
	Driver string `json:"driver"`
	Site   string `json:"site,omitempty"`
	Repo   string `json:"repo"`
	// Note says what this driver does not record (drivers without locks).
	Note string `json:"note,omitempty"`
	// Poller is the last cycle as the poller's metrics report it; nil
	// when unknown, and PollerNote says why.
	Poller     *Poller `json:"poller"`
	PollerNote string  `json:"poller_note,omitempty"`
	// Locks, Quarantined, Failing and Deferred are read from the
	// candidates the configured queries match (Scanned of them; Truncated
	// when the page was full and older candidates were not read).
	Locks       []Lock       `json:"locks"`
	Quarantined []Quarantine `json:"quarantined"`
	Failing     []Failing    `json:"failing"`
	Deferred    []Deferred   `json:"deferred"`
	Scanned     int          `json:"scanned"`
	Truncated   bool         `json:"truncated"`
	// Cursor is the shared discovery cursor; nil when it is not read.
	Cursor *Cursor `json:"cursor"`
	// RateLimit is the budget Jira reported on this snapshot's own calls.
	RateLimit *RateLimit `json:"rate_limit,omitempty"`
}

// Poller is the liveness of a poller, from its /metrics and /healthz.
type Poller struct {
	Healthy         *bool      `json:"healthy,omitempty"`
	LastCycle       *time.Time `json:"last_cycle,omitempty"`
	LastResult      string     `json:"last_result,omitempty"` // ok or error
	LastError       string     `json:"last_error,omitempty"`
	LastSuccess     *time.Time `json:"last_success,omitempty"`
	CyclesOK        int        `json:"cycles_ok"`
	CyclesFailed    int        `json:"cycles_failed"`
	MeanDurationSec float64    `json:"mean_duration_seconds"`
	APICalls        int        `json:"api_calls"`
	BudgetRemaining *int       `json:"rate_limit_remaining,omitempty"`
}

// Lock is one poll lock held on a work item.
type Lock struct {
	Item    string     `json:"item"`
	Phase   string     `json:"phase"`
	Owner   string     `json:"owner"`
	Written time.Time  `json:"written"`
	AgeSec  float64    `json:"age_seconds"`
	Stale   bool       `json:"stale"`
	Corrupt string     `json:"corrupt,omitempty"` // the value could not be read (treated as stale)
	Runs    []plan.Ref `json:"runs"`
}

// Quarantine is one quarantined change.
type Quarantine struct {
	Item     string    `json:"item"`
	Change   string    `json:"change"`
	Harness  string    `json:"harness,omitempty"`
	At       time.Time `json:"at"`
	TS       time.Time `json:"quarantined_at"`
	Attempts int       `json:"attempts,omitempty"`
	Reason   string    `json:"reason"`
}

// Failing is a harness whose dispatch of one change failed in recent
// cycles (it is quarantined at the third consecutive failure).
type Failing struct {
	Item     string    `json:"item"`
	Harness  string    `json:"harness"`
	Change   string    `json:"change"`
	Attempts int       `json:"attempts"`
	TS       time.Time `json:"last_attempt"`
	Reason   string    `json:"reason"`
}

// Deferred kinds.
const (
	DeferredRetry  = "retry"  // a harness kept an older position: its dispatch failed or was rate limited
	DeferredIntent = "intent" // a dispatch was about to be made and not checkpointed
)

// Deferred is a harness of a work item whose changes wait.
type Deferred struct {
	Item     string    `json:"item"`
	Harness  string    `json:"harness"`
	Kind     string    `json:"kind"`
	Position time.Time `json:"position"` // changes after this are dispatched again
	Key      string    `json:"key,omitempty"`
}

// Cursor is the shared discovery cursor and how far it lags.
type Cursor struct {
	At      time.Time            `json:"at"`
	By      string               `json:"by"`
	TS      time.Time            `json:"ts"`
	LagSec  float64              `json:"lag_seconds"`
	Pollers map[string]time.Time `json:"pollers,omitempty"`
	Held    map[string]time.Time `json:"held,omitempty"` // candidates before At not handled yet (key → their update)
}

// RateLimit is a rate-limit budget a service reported.
type RateLimit struct {
	Limit     int        `json:"limit,omitempty"`
	Remaining int        `json:"remaining"`
	Reset     *time.Time `json:"reset,omitempty"`
}
