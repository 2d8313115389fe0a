package runner

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// BaseEnv lists the variables of fullsend's own environment that every agent
// inherits (when set). Everything else — notably GITHUB_TOKEN, GH_TOKEN,
// GITLAB_TOKEN and JIRA_TOKEN — reaches the agent only when the harness
// names it in `run.env`.
var BaseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM"}

// Variables `fullsend run` sets for the agent (docs/runner.md, "The agent's environment").
const (
	EnvWorkItemURL      = "FULLSEND_WORK_ITEM_URL"
	EnvWorkItemSource   = "FULLSEND_WORK_ITEM_SOURCE"
	EnvWorkItemKey      = "FULLSEND_WORK_ITEM_KEY"
	EnvHarness          = "FULLSEND_HARNESS"
	EnvSerializationKey = "FULLSEND_SERIALIZATION_KEY"
	EnvEventFile        = "FULLSEND_EVENT_FILE"
	EnvEntityFile       = "FULLSEND_ENTITY_FILE" // runs of entity-source harnesses only
	EnvGitHubIssueURL   = "GITHUB_ISSUE_URL"
	EnvIssueNumber      = "ISSUE_NUMBER"
	// EnvAttribution is the audit record of a scheduled run (JSON,
	// plan.Attribution); set only for scheduled runs.
	EnvAttribution = "FULLSEND_ATTRIBUTION"
)

// withAttribution adds $FULLSEND_ATTRIBUTION to env when the lock the run
// claimed carries an attribution record for harness (a scheduled run).
func withAttribution(env []string, lk polllock.Lock, harness string) []string {
	a := lk.Entity[harness].Attribution
	if a == nil {
		return env
	}
	b, err := json.Marshal(a)
	if err != nil {
		return env
	}
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, EnvAttribution+"=") })
	env = append(env, EnvAttribution+"="+string(b))
	sort.Strings(env)
	return env
}

// AgentContext is what the agent is told about its run.
type AgentContext struct {
	Harness   string
	Event     *event.Event
	Forge     string // config forge hosting Event.Repo (default github)
	Key       scope.Key
	PollLock  *plan.PollLock // nil outside polling
	EventFile string         // path of the private event file
	// EntityFile is the path of the private entity file; "" for an
	// event-only run (FULLSEND_ENTITY_FILE is then not set).
	EntityFile string
}

// AgentEnv builds the agent's complete environment, sorted by name:
//
//   - the BaseEnv variables and the harness allow-list allow, copied from
//     getenv when set (empty values are not copied);
//   - always: FULLSEND_WORK_ITEM_URL/SOURCE/KEY, FULLSEND_POLL_LOCK_ID/
//     DRIVER/PROPERTY (empty outside polling), FULLSEND_HARNESS,
//     FULLSEND_SERIALIZATION_KEY, FULLSEND_EVENT_FILE;
//   - FULLSEND_ENTITY_FILE for a run with an entity (never inherited);
//   - GITHUB_ISSUE_URL and ISSUE_NUMBER for a GitHub issue, ISSUE_NUMBER for
//     a GitLab issue, and ISSUE_NUMBER set to "" for a Jira work item.
//
// The variables fullsend sets win over inherited ones of the same name.
func AgentEnv(c AgentContext, allow []string, getenv func(string) string) []string {
	env := map[string]string{}
	for _, names := range [][]string{BaseEnv, allow} {
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, "=\x00") {
				continue
			}
			if v := getenv(n); v != "" {
				env[n] = v
			}
		}
	}
	wi := plan.WorkItemOf(c.Event)
	env[EnvWorkItemURL] = wi.URL
	env[EnvWorkItemSource] = wi.Source
	env[EnvWorkItemKey] = wi.Key
	var pl plan.PollLock
	if c.PollLock != nil {
		pl = *c.PollLock
	}
	env[EnvPollLockID] = pl.ID
	env[EnvPollLockDriver] = pl.Driver
	env[EnvPollLockProp] = pl.Property
	env[EnvHarness] = c.Harness
	env[EnvSerializationKey] = string(c.Key)
	env[EnvEventFile] = c.EventFile
	delete(env, EnvEntityFile)
	if c.EntityFile != "" {
		env[EnvEntityFile] = c.EntityFile
	}
	delete(env, EnvGitHubIssueURL)
	delete(env, EnvIssueNumber)
	subj := scope.SubjectOf(c.Event, c.Forge)
	isIssue := c.Event.Entity.Kind == event.KindWorkItem && c.Event.Entity.LinkedChangeProposal == nil
	switch {
	case subj.System == event.SystemJira:
		env[EnvIssueNumber] = ""
	case subj.System == event.SystemGitHub && isIssue:
		env[EnvGitHubIssueURL] = c.Event.Entity.URL
		env[EnvIssueNumber] = strconv.FormatInt(c.Event.Entity.ID, 10)
	case subj.System == event.SystemGitLab && isIssue:
		env[EnvIssueNumber] = strconv.FormatInt(c.Event.Entity.ID, 10)
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
