package runner

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// DecodeEvent decodes and validates the event document of in. A problem is
// an *InputError naming where the event came from and the JSON path.
func DecodeEvent(in Inputs) (*event.Event, error) {
	ev, err := event.Decode(in.EventJSON)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("event from %s: %w", in.EventFrom, err)}
	}
	return ev, nil
}

// DecodeEntity decodes and validates the entity document of in (nil when
// the run has none) and checks that it is the event's entity
// (entity.RefOf). A problem is an *InputError naming where the entity came
// from.
func DecodeEntity(in Inputs, ev *event.Event) (*entity.Entity, error) {
	if in.EntityJSON == nil {
		return nil, nil
	}
	en, err := entity.Decode(in.EntityJSON)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("entity from %s: %w", in.EntityFrom, err)}
	}
	if want := entity.RefOf(ev); en.Ref() != want {
		return nil, inputErr("entity from %s is %s, but the event is about %s", in.EntityFrom, en.Ref(), want)
	}
	return en, nil
}

// NewJiraAPI builds the Jira client for a connection; tests may replace it.
type NewJiraAPI func(jira.Options) (JiraProperties, error)

// DefaultJiraAPI is jira.New.
func DefaultJiraAPI(o jira.Options) (JiraProperties, error) { return jira.New(o) }

// LockerFor builds the Locker for pl from the lock input of
// cfg.poll.input_drivers (config.Poll.LockInput: the first jira-poll
// entry): its connection (credentials read from the
// variables it names; an empty email means Bearer auth), rate limit and
// lock.stale_threshold. It also returns lock.refresh_interval. The
// Locker judges and writes the lock on Jira's clock, estimated from the
// client's answers (package trackerclock), whatever the host's clock says. A missing
// driver entry, base URL or token is an *InputError.
func LockerFor(cfg *config.Config, pl *plan.PollLock, getenv func(string) string, run plan.Ref,
	newAPI NewJiraAPI, log *slog.Logger) (*Locker, time.Duration, error) {
	if err := CheckPollLock(pl); err != nil {
		return nil, 0, err
	}
	i, ok := cfg.Poll.LockInput()
	if !ok {
		return nil, 0, inputErr("the run holds a %s poll lock but %s has no poll.input_drivers entry of type %s", DriverJiraPoll, cfg.File, DriverJiraPoll)
	}
	drv := cfg.Poll.InputDrivers[i]
	opts, err := config.JiraOptions(drv, getenv, log)
	if err != nil {
		return nil, 0, &InputError{Err: err}
	}
	if newAPI == nil {
		newAPI = DefaultJiraAPI
	}
	clock := trackerclock.New(opts.Now) // Jira's clock, from its answers
	opts.Clock = clock
	api, err := newAPI(opts)
	if err != nil {
		return nil, 0, &InputError{Err: err}
	}
	lk, err := NewLocker(JiraStore{API: api}, pl, drv.Lock.StaleThreshold, run)
	if err != nil {
		return nil, 0, err
	}
	lk.Now = clock.Now
	if drv.Lock.PendingTTL > 0 {
		lk.PendingTTL = drv.Lock.PendingTTL
	}
	return lk, drv.Lock.RefreshInterval, nil
}
