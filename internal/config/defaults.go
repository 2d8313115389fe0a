package config

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// Default values applied by Load to settings the file leaves out.
const (
	DefaultForge               = "github"
	DefaultMinRole             = event.RoleWrite
	DefaultRunsPerScopePerHour = 6
	DefaultTriggerCost         = 1_000_000
	DefaultTriggerTimeout      = 100 * time.Millisecond
	DefaultLockM               = 50
	DefaultLockN               = 5
	DefaultRefreshInterval     = 300 * time.Second
	DefaultJitterMin           = 500 * time.Millisecond
	DefaultJitterMax           = 1500 * time.Millisecond
	DefaultConcurrency         = 4
	DefaultRPS                 = 10
	DefaultBurst               = 20
	DefaultWorkflow            = "fullsend-run.yml"
	DefaultMaxParallel         = 4
	DefaultGrace               = 30 * time.Second
	DefaultPollOutputDriver    = drivername.GHADispatch
	DefaultEmailEnv            = "JIRA_USER_EMAIL"
	DefaultTokenEnv            = "JIRA_TOKEN"
	DefaultRequestTimeout      = 15 * time.Second
	DefaultRetryBudget         = 60 * time.Second
	DefaultMaxRetries          = 4
	DefaultPollGrace           = 5 * time.Minute
	// DefaultRequestsPerCycle is a forge poller's requests_per_cycle: a
	// fifth of GitHub's hourly REST quota for a token, half of
	// GitLab.com's per-minute one.
	DefaultRequestsPerCycle = 1000
)

// Default returns a Config holding every default and nothing else.
func Default() *Config {
	return &Config{
		Forge:         DefaultForge,
		Authorization: Authorization{MinRole: DefaultMinRole, BotAccounts: []string{}, ScheduledDiscovery: ScheduledDeny},
		Limits: Limits{RunsPerScopePerHour: DefaultRunsPerScopePerHour,
			TriggerCost: DefaultTriggerCost, TriggerTimeout: DefaultTriggerTimeout},
		Poll: Poll{OutputDriver: DefaultPollOutputDriver},
		Outputs: Outputs{
			GHADispatch: GHADispatch{Workflow: DefaultWorkflow},
			Local:       Local{MaxParallel: DefaultMaxParallel, Grace: DefaultGrace},
		},
	}
}

// defaultInputDriver returns the defaults of one poll input driver.
func defaultInputDriver() InputDriver {
	return InputDriver{
		Connection: Connection{EmailEnv: DefaultEmailEnv, TokenEnv: DefaultTokenEnv,
			Timeout: DefaultRequestTimeout, RetryBudget: DefaultRetryBudget, MaxRetries: DefaultMaxRetries},
		Queries: []string{},
		Lock: Lock{
			M: DefaultLockM, N: DefaultLockN,
			StaleThreshold: DefaultStaleThreshold, RefreshInterval: DefaultRefreshInterval,
			PendingTTL: DefaultPendingTTL,
			JitterMin:  DefaultJitterMin, JitterMax: DefaultJitterMax,
		},
		Concurrency: DefaultConcurrency,
		RateLimit:   RateLimit{RPS: DefaultRPS, Burst: DefaultBurst},
	}
}

// DefaultStaleThreshold applies when no lock.stale_threshold is configured.
const DefaultStaleThreshold = 900 * time.Second

// DefaultPendingTTL applies when no lock.pending_ttl is configured.
const DefaultPendingTTL = 2 * time.Minute
