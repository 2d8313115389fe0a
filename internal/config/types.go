// Package config loads `.fullsend/config.yaml` and the harness files it
// registers (docs/configuration.md): strict decoding, file:line:col in every
// error, defaults, and environment resolution (flag > config > environment).
package config

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Config is the decoded, defaulted config.yaml.
type Config struct {
	Dir           string        `yaml:"-"` // the config directory it was loaded from
	File          string        `yaml:"-"` // path of config.yaml
	Version       int           `yaml:"version"`
	Repo          string        `yaml:"repo"`
	Forge         string        `yaml:"forge"`
	KillSwitch    bool          `yaml:"kill_switch"`
	Agents        []Agent       `yaml:"agents"`
	Authorization Authorization `yaml:"authorization"`
	Limits        Limits        `yaml:"limits"`
	Poll          Poll          `yaml:"poll"`
	Outputs       Outputs       `yaml:"outputs"`
	// RepoSource says where Repo came from: "config", "GITHUB_REPOSITORY",
	// "CI_PROJECT_PATH", or "" when no repo is known. A caller that
	// overwrites Repo from a flag should set it to "flag".
	RepoSource string `yaml:"-"`
}

// Agent registers one harness file.
type Agent struct {
	Name    string `yaml:"name"`
	Source  string `yaml:"source"` // relative to Dir
	Enabled *bool  `yaml:"enabled"`
	// Path is Source resolved against the config directory (symlinks
	// resolved), set by Load once the file is known to exist inside it.
	Path string `yaml:"-"`
	// Line and Col locate this agents entry in config.yaml.
	Line int `yaml:"-"`
	Col  int `yaml:"-"`
}

// IsEnabled reports whether the agent is enabled (default true).
func (a Agent) IsEnabled() bool { return a.Enabled == nil || *a.Enabled }

// Authorization is the gate policy.
type Authorization struct {
	MinRole     event.Role `yaml:"min_role"`     // default write
	BotAccounts []string   `yaml:"bot_accounts"` // extra ids treated as this tool's own bot
	// ScheduledDiscovery is the platform policy on scheduled entity
	// discovery (evaluation with a null event): ScheduledAllow or
	// ScheduledDeny (the default).
	ScheduledDiscovery string `yaml:"scheduled_discovery"`
}

// Values of authorization.scheduled_discovery.
const (
	ScheduledAllow = "allow"
	ScheduledDeny  = "deny"
)

// AllowsScheduled reports whether the policy allows scheduled entity
// discovery: only an explicit "allow" does; anything else denies.
func (a Authorization) AllowsScheduled() bool { return a.ScheduledDiscovery == ScheduledAllow }

// Limits holds the circuit breakers and the bounds of one trigger
// evaluation.
type Limits struct {
	RunsPerScopePerHour int           `yaml:"runs_per_scope_per_hour"` // default 6
	TriggerCost         int           `yaml:"trigger_cost"`            // CEL cost units per evaluation, default 1000000
	TriggerTimeout      time.Duration `yaml:"trigger_timeout"`         // accepted, bounds nothing: triggers are bounded by cost alone (docs/triggers.md)
}

// Poll configures `fullsend poll`.
type Poll struct {
	InputDrivers []InputDriver `yaml:"input_drivers"`
	OutputDriver string        `yaml:"output_driver"`
	// CycleTimeout bounds one poll cycle; zero means the default (80% of
	// --interval with --watch, else 4m).
	CycleTimeout time.Duration `yaml:"cycle_timeout"`
}

// InputDriver configures one poll input driver (first: jira-poll).
type InputDriver struct {
	Type        string     `yaml:"type"`
	Connection  Connection `yaml:"connection"`
	Project     string     `yaml:"project"`
	Queries     []string   `yaml:"queries"`
	Lock        Lock       `yaml:"lock"`
	Cursor      Cursor     `yaml:"cursor"`      // jira-poll only
	Concurrency int        `yaml:"concurrency"` // default 4
	RateLimit   RateLimit  `yaml:"rate_limit"`
	// Lookback is how far back a gitlab-poll or github-poll cycle reads (default 2h).
	Lookback time.Duration `yaml:"lookback"`
	// Grace leaves a gitlab-poll or github-poll change younger than it
	// (on the forge's clock) to the webhook path; 0 makes the poller the
	// primary path (default 5m; not accepted on jira-poll entries).
	Grace time.Duration `yaml:"grace"`
}

// Connection says where the tracker is and which environment variables hold
// the credentials. Secrets never live in config.
type Connection struct {
	BaseURL  string `yaml:"base_url"`  // default $JIRA_BASE_URL
	EmailEnv string `yaml:"email_env"` // default JIRA_USER_EMAIL
	TokenEnv string `yaml:"token_env"` // default JIRA_TOKEN
	// Timeout bounds each HTTP attempt; RetryBudget the time one call
	// spends retrying; MaxRetries the retries after the first attempt.
	Timeout     time.Duration `yaml:"timeout"`      // default 15s
	RetryBudget time.Duration `yaml:"retry_budget"` // default 60s
	MaxRetries  int           `yaml:"max_retries"`  // default 4; 0 in the file is NoRetries here
}

// NoRetries is Connection.MaxRetries after `max_retries: 0`: zero itself
// means "not set" to the clients, which then use their default.
const NoRetries = -1

// Lock tunes poll-lock coordination.
type Lock struct {
	M               int           `yaml:"m"`                // candidates per cycle, default 50
	N               int           `yaml:"n"`                // issues locked per cycle, default 5
	StaleThreshold  time.Duration `yaml:"stale_threshold"`  // default 900s
	PendingTTL      time.Duration `yaml:"pending_ttl"`      // default 120s, at most stale_threshold
	RefreshInterval time.Duration `yaml:"refresh_interval"` // default 300s
	JitterMin       time.Duration `yaml:"jitter_min"`       // default 500ms
	JitterMax       time.Duration `yaml:"jitter_max"`       // default 1500ms
}

// RateLimit is a client-side token bucket.
type RateLimit struct {
	RPS   float64 `yaml:"rps"`   // default 10
	Burst int     `yaml:"burst"` // default 20
}

// Outputs configures the output drivers.
type Outputs struct {
	GHADispatch    GHADispatch    `yaml:"gha-dispatch"`
	GitLabPipeline GitLabPipeline `yaml:"gitlab-pipeline"`
	Local          Local          `yaml:"local"`
}

// GHADispatch configures the gha-dispatch output.
type GHADispatch struct {
	Workflow string `yaml:"workflow"` // default fullsend-run.yml
	Ref      string `yaml:"ref"`      // default $GITHUB_REF_NAME, else the default branch
}

// GitLabPipeline configures the gitlab-pipeline output.
type GitLabPipeline struct {
	Project string `yaml:"project"` // default: Repo
	Ref     string `yaml:"ref"`
}

// Local configures the local executor.
type Local struct {
	MaxParallel int           `yaml:"max_parallel"` // default 4
	Grace       time.Duration `yaml:"grace"`        // shutdown grace period, default 30s
}

// HarnessFile is one decoded harness file, before its trigger is
// compiled: the raw material of package harness, whose Harness is what
// every command uses.
type HarnessFile struct {
	File string `yaml:"-"` // path of the harness file
	// Revision identifies the file's content: "sha256:" and the hex
	// digest of its bytes (the harness revision of a scheduled run's
	// attribution record).
	Revision string      `yaml:"-"`
	Name     string      `yaml:"name"`
	Role     string      `yaml:"role"`
	Trigger  string      `yaml:"trigger"`
	Dispatch HarnessDisp `yaml:"dispatch"`
	Run      HarnessRun  `yaml:"run"`
	// Entity is the entity-source opt-in (docs/triggers.md); nil for an
	// event-only harness.
	Entity *HarnessEntity `yaml:"entity"`
	// Report is what people see on the item (docs/feedback.md).
	Report HarnessReport `yaml:"report"`
	// Steer is the steering opt-in (docs/steering.md).
	Steer HarnessSteer `yaml:"steer"`
	// Overlays are the `overlays:` entries, in file order; nil when none.
	Overlays []HarnessOverlay `yaml:"overlays"`
	// TriggerLine and TriggerCol locate the trigger text in File, so CEL
	// errors can be reported as file:line:col.
	TriggerLine int `yaml:"-"`
	TriggerCol  int `yaml:"-"`
	// trig remembers where and how the trigger was written, for TriggerPos.
	trig triggerSource
}

// HarnessEntity is a harness's `entity:` key: the systems whose entities
// its trigger is evaluated on, and the least role an actor of the
// entity's activity must hold for the element to be shown to the trigger.
type HarnessEntity struct {
	Sources []string   `yaml:"sources"`  // jira, github, gitlab; at least one, no repeats
	MinRole event.Role `yaml:"min_role"` // "" = authorization.min_role
	// Every is the least time between two scheduled evaluations of one
	// entity for this harness; 0 means every poll cycle.
	Every time.Duration `yaml:"every"`
	// Retry bounds the runs of one entity version that end without
	// success (defaults DefaultRetryMax, DefaultRetryBackoff).
	Retry HarnessRetry `yaml:"retry"`
	// Line and Col locate the `entity:` value in the file.
	Line, Col int `yaml:"-"`
}

// HarnessRetry is `entity.retry`: how often and how soon a harness's run
// on one entity version is started again after it ended without success.
type HarnessRetry struct {
	Max     int           `yaml:"max"`     // runs after the first, then quarantine
	Backoff time.Duration `yaml:"backoff"` // wait before the first retry, doubled after each
}

// Defaults and least values of entity.retry and entity.every.
const (
	DefaultRetryMax     = 3
	DefaultRetryBackoff = time.Minute
	MinRetryBackoff     = time.Second
	MaxRetryMax         = 100
	MinEvery            = time.Second
)

// HarnessDisp holds per-harness dispatch overrides.
type HarnessDisp struct {
	Workflow string `yaml:"workflow"`
}

// HarnessRun says what `fullsend run` and the local executor start.
type HarnessRun struct {
	Command []string      `yaml:"command"`
	Timeout time.Duration `yaml:"timeout"` // default 30m
	Env     []string      `yaml:"env"`     // extra environment variable names passed to the agent
	// User is the agent's identity (a user name or uid:gid; "" = the
	// default, sandbox.DefaultUser); Isolation is "user" (default) or
	// "none" (docs/runner.md, "The agent's identity").
	User      string `yaml:"user"`
	Isolation string `yaml:"isolation"`
	// CommandLine and CommandCol locate run.command's program in the file.
	CommandLine, CommandCol int `yaml:"-"`
}
