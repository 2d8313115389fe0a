package poll

import (
	"context"
	"log/slog"
	"time"
)

// CycleStats is the record of one poll cycle (docs/polling.md, "Reading the cycle log").
// Every cycle logs exactly one of these and hands it to the Observer.
type CycleStats struct {
	CycleID string
	Driver  string
	Output  string // the output driver the cycle dispatched to
	DryRun  bool

	Candidates int // work items the discovery returned
	Eligible   int // unlocked (or stale-locked) and changed
	Selected   int // eligible items this cycle worked on (at most N; without locks, every one the API budget allowed)
	// ItemsDeferred counts, for a driver without locks, the eligible
	// items left to the next cycle because the cycle's API budget was
	// spent (pollcycle/budget.go).
	ItemsDeferred int
	Corrupt       int // corrupt lock or checkpoint values seen
	// Cursor is the shared discovery cursor's state (drivers with one).
	Cursor CursorReport

	LocksSkipped      int // selected items a fresh read showed locked or unchanged
	LocksAttempted    int // lock writes sent
	LocksAcquired     int // locks still ours at verification
	LocksLost         int // locks another poller took (or ours went stale)
	LocksStaleRemoved int // stale locks overwritten or deleted
	ItemsGone         int // items deleted mid-cycle
	ItemsFailed       int // items skipped after a per-item error
	// ChangesQuarantined counts changes given up on (an invalid event, or
	// a dispatch that failed MaxDispatchAttempts cycles): recorded on the
	// item, logged, and passed by the checkpoint.
	ChangesQuarantined int

	// Scheduled discovery (Options.Schedule): entities evaluated with no
	// event, scheduled runs found due (ScheduledRetries of them retries of
	// a version whose run ended without success), entity versions given
	// up on (quarantined, also counted in ChangesQuarantined), and swept
	// items brought in without a change.
	ScheduledEvaluated   int
	ScheduledDue         int
	ScheduledRetries     int
	ScheduledQuarantined int
	ScheduledSwept       int

	Events        int // changes detected inside the cycle's windows
	EventsBot     int // changes by bots (never trigger runs)
	EventsInvalid int // changes whose event failed validation
	EventsDenied  int // changes the authorization gate refused
	EventsNoMatch int // authorized changes no trigger matched
	// TriggerErrors counts evaluations a trigger could not finish (its
	// cost limit stopped it): never counted as no match; the change is
	// retried, then quarantined.
	TriggerErrors int
	// OverlayErrors counts, per harness, the runs planned with the
	// harness's own settings because an overlay's `when` could not be
	// evaluated (logged with the overlay's position).
	OverlayErrors map[string]int

	// EntitySystem is the system whose entities the entity stage
	// resolved ("" when it did not run: no enabled harness declares the
	// driver's system among its entity sources, or the driver resolves no
	// entities). EntitiesResolved and EntitiesUnresolved count the items
	// whose entity was resolved, or could not be (each logged with the
	// reason); EntityDenials counts, per harness and reason, the changes
	// an entity-source harness was denied evaluation of.
	EntitySystem       string
	EntitiesResolved   int
	EntitiesUnresolved int
	EntityDenials      map[DenialKey]int

	RunsMatched     int // runs the triggers asked for
	RunsCoalesced   int // runs replaced by a newer event of the same harness and item
	RunsRateLimited int // runs the per-scope circuit breaker skipped

	DispatchesScheduled int // runs handed to the output driver successfully
	DispatchesFailed    int // runs the output driver failed to start
	DispatchesRecovered int // runs of interrupted dispatches found on the platform (not dispatched again)
	// DispatchesRefused counts failed dispatches the output says certainly
	// started nothing (output.ErrNotStarted): retried at the next cycle.
	DispatchesRefused int
	// ItemsSettling counts eligible items left out before locking because
	// an intent of a dispatch whose outcome is unknown is younger than
	// Options.IntentSettle.
	ItemsSettling int
	RunsPlanned   int // dry run: runs that would have been dispatched
	// DispatchLatencies holds, per scheduled dispatch, the time from the
	// change it is for to the output accepting the run (Options.Now).
	DispatchLatencies []time.Duration

	APICalls       int        // tracker API calls (retries included)
	RateLimitWaits int        // times a call waited for the rate limiter or Retry-After
	RateBudget     RateBudget // the tracker's rate-limit budget at the cycle's end
	Duration       time.Duration
	Interrupted    bool   // a stop signal ended the cycle early
	Error          string // why the cycle failed, if it did
}

// Observer receives every cycle's stats (e.g. for Prometheus metrics).
type Observer func(CycleStats)

// LogAttrs renders the stats as slog attributes.
func (s CycleStats) LogAttrs() []slog.Attr {
	a := []slog.Attr{
		slog.String("cycle_id", s.CycleID),
		slog.String("driver", s.Driver),
		slog.Bool("dry_run", s.DryRun),
		slog.Int("candidates", s.Candidates),
		slog.Int("eligible", s.Eligible),
		slog.Int("selected", s.Selected),
		slog.Int("items_deferred", s.ItemsDeferred),
		slog.Int("corrupt_values", s.Corrupt),
		slog.Int("locks_skipped", s.LocksSkipped),
		slog.Int("locks_attempted", s.LocksAttempted),
		slog.Int("locks_acquired", s.LocksAcquired),
		slog.Int("locks_lost", s.LocksLost),
		slog.Int("locks_stale_removed", s.LocksStaleRemoved),
		slog.Int("items_gone", s.ItemsGone),
		slog.Int("items_failed", s.ItemsFailed),
		slog.Int("changes_quarantined", s.ChangesQuarantined),
		slog.Int("events", s.Events),
		slog.Int("scheduled_evaluated", s.ScheduledEvaluated),
		slog.Int("scheduled_due", s.ScheduledDue),
		slog.Int("scheduled_retries", s.ScheduledRetries),
		slog.Int("scheduled_quarantined", s.ScheduledQuarantined),
		slog.Int("scheduled_swept", s.ScheduledSwept),
		slog.Int("events_bot", s.EventsBot),
		slog.Int("events_invalid", s.EventsInvalid),
		slog.Int("events_denied", s.EventsDenied),
		slog.Int("events_no_match", s.EventsNoMatch),
		slog.Int("trigger_errors", s.TriggerErrors),
		slog.Int("overlay_errors", s.overlayErrors()),
		slog.Int("runs_matched", s.RunsMatched),
		slog.Int("runs_coalesced", s.RunsCoalesced),
		slog.Int("runs_rate_limited", s.RunsRateLimited),
		slog.Int("dispatches_scheduled", s.DispatchesScheduled),
		slog.Int("dispatches_failed", s.DispatchesFailed),
		slog.Int("dispatches_recovered", s.DispatchesRecovered),
		slog.Int("dispatches_refused", s.DispatchesRefused),
		slog.Int("items_settling", s.ItemsSettling),
		slog.Int("api_calls", s.APICalls),
		slog.Int("rate_limit_waits", s.RateLimitWaits),
		slog.Int64("duration_ms", s.Duration.Milliseconds()),
		slog.Bool("interrupted", s.Interrupted),
	}
	n := 0
	for _, v := range s.EntityDenials {
		n += v
	}
	if s.EntitySystem != "" || n > 0 {
		a = append(a, slog.String("entity_system", s.EntitySystem), slog.Int("entities_resolved", s.EntitiesResolved),
			slog.Int("entities_unresolved", s.EntitiesUnresolved), slog.Int("entity_denials", n))
	}
	if c := s.Cursor; c.State != "" {
		a = append(a, slog.String("cursor", c.State), slog.Bool("cursor_moved", c.Moved), slog.Int("left_to_others", c.Shared))
		if !c.At.IsZero() {
			a = append(a, slog.Time("cursor_at", c.At), slog.Int64("cursor_lag_ms", c.Lag.Milliseconds()))
		}
	}
	if b := s.RateBudget; b.Known {
		a = append(a, slog.Int("rate_limit_remaining", b.Remaining), slog.Int("rate_limit_limit", b.Limit))
		if !b.Reset.IsZero() {
			a = append(a, slog.Time("rate_limit_reset", b.Reset))
		}
	}
	if s.DryRun {
		a = append(a, slog.Int("runs_planned", s.RunsPlanned))
	}
	if s.Error != "" {
		a = append(a, slog.String("error", s.Error))
	}
	return a
}

// Log writes the one structured record of the cycle.
func (s CycleStats) Log(l *slog.Logger) {
	level := slog.LevelInfo
	if s.Error != "" {
		level = slog.LevelError
	}
	l.LogAttrs(context.Background(), level, "poll cycle", s.LogAttrs()...)
}

// NoteOverlayErrors counts the overlay errors of one decision, by harness.
func (s *CycleStats) NoteOverlayErrors(harnesses []string) {
	for _, h := range harnesses {
		if s.OverlayErrors == nil {
			s.OverlayErrors = map[string]int{}
		}
		s.OverlayErrors[h]++
	}
}

// overlayErrors is the total of OverlayErrors.
func (s CycleStats) overlayErrors() int {
	n := 0
	for _, c := range s.OverlayErrors {
		n += c
	}
	return n
}
