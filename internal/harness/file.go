package harness

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// File is one decoded harness file, before its trigger is
// compiled: the raw material of package harness, whose Harness is what
// every command uses.
type File struct {
	File string `yaml:"-"` // path of the harness file
	// Revision identifies the file's content: "sha256:" and the hex
	// digest of its bytes (the harness revision of a scheduled run's
	// attribution record).
	Revision string       `yaml:"-"`
	Name     string       `yaml:"name"`
	Role     string       `yaml:"role"`
	Trigger  string       `yaml:"trigger"`
	Dispatch FileDispatch `yaml:"dispatch"`
	Run      FileRun      `yaml:"run"`
	// Entity is the entity-source opt-in (docs/triggers.md); nil for an
	// event-only harness.
	Entity *FileEntity `yaml:"entity"`
	// Report is what people see on the item (docs/feedback.md).
	Report Report `yaml:"report"`
	// Steer is the steering opt-in (docs/steering.md).
	Steer Steer `yaml:"steer"`
	// Overlays are the `overlays:` entries, in file order; nil when none.
	Overlays []FileOverlay `yaml:"overlays"`
	// TriggerLine and TriggerCol locate the trigger text in File, so CEL
	// errors can be reported as file:line:col.
	TriggerLine int `yaml:"-"`
	TriggerCol  int `yaml:"-"`
	// trig remembers where and how the trigger was written, for TriggerPos.
	trig triggerSource
}

// FileEntity is a harness's `entity:` key: the systems whose entities
// its trigger is evaluated on, and the least role an actor of the
// entity's activity must hold for the element to be shown to the trigger.
type FileEntity struct {
	Sources []string   `yaml:"sources"`  // jira, github, gitlab; at least one, no repeats
	MinRole event.Role `yaml:"min_role"` // "" = authorization.min_role
	// Every is the least time between two scheduled evaluations of one
	// entity for this harness; 0 means every poll cycle.
	Every time.Duration `yaml:"every"`
	// Retry bounds the runs of one entity version that end without
	// success (defaults DefaultRetryMax, DefaultRetryBackoff).
	Retry FileRetry `yaml:"retry"`
	// Line and Col locate the `entity:` value in the file.
	Line, Col int `yaml:"-"`
}

// FileRetry is `entity.retry`: how often and how soon a harness's run
// on one entity version is started again after it ended without success.
type FileRetry struct {
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

// FileDispatch holds per-harness dispatch overrides.
type FileDispatch struct {
	Workflow string `yaml:"workflow"`
}

// FileRun says what `fullsend run` and the local executor start.
type FileRun struct {
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

const (
	DefaultTimeout = 30 * time.Minute
)
