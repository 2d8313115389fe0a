package runner

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/plan"
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

// NewJiraAPI builds the Jira client for a connection; tests may replace it.
type NewJiraAPI func(jira.Options) (jira.API, error)

// DefaultJiraAPI is jira.New.
func DefaultJiraAPI(o jira.Options) (jira.API, error) { return jira.New(o) }

// LockerFor builds the Locker for pl from the first jira-poll entry of
// cfg.poll.input_drivers: its connection (credentials read from the
// variables it names; an empty email means Bearer auth), rate limit and
// lock.stale_threshold. It also returns lock.refresh_interval. A missing
// driver entry, base URL or token is an *InputError.
func LockerFor(cfg *config.Config, pl *plan.PollLock, getenv func(string) string, run plan.Ref,
	newAPI NewJiraAPI, log *slog.Logger) (*Locker, time.Duration, error) {
	if err := CheckPollLock(pl); err != nil {
		return nil, 0, err
	}
	var drv *config.InputDriver
	for i := range cfg.Poll.InputDrivers {
		if cfg.Poll.InputDrivers[i].Type == DriverJiraPoll {
			drv = &cfg.Poll.InputDrivers[i]
			break
		}
	}
	if drv == nil {
		return nil, 0, inputErr("the run holds a %s poll lock but %s has no poll.input_drivers entry of type %s", DriverJiraPoll, cfg.File, DriverJiraPoll)
	}
	conn := drv.Connection
	if err := conn.CheckConnection(); err != nil {
		return nil, 0, &InputError{Err: err}
	}
	token := getenv(conn.TokenEnv)
	if token == "" {
		return nil, 0, inputErr("jira-poll: no API token: $%s (connection.token_env) is empty", conn.TokenEnv)
	}
	if newAPI == nil {
		newAPI = DefaultJiraAPI
	}
	api, err := newAPI(jira.Options{BaseURL: conn.BaseURL, Email: getenv(conn.EmailEnv), Token: token,
		RPS: drv.RateLimit.RPS, Burst: drv.RateLimit.Burst, Logger: log})
	if err != nil {
		return nil, 0, &InputError{Err: err}
	}
	lk, err := NewLocker(JiraStore{API: api}, pl, drv.Lock.StaleThreshold, run)
	if err != nil {
		return nil, 0, err
	}
	return lk, drv.Lock.RefreshInterval, nil
}
