package config

import (
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/strictyaml"
	"github.com/fullsend-dev/fullsend/internal/strictyaml/strictyamltest"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// TestConfigProblems covers every class of bad input with its exact
// position. Each YAML text is written as config.yaml next to h/a.yaml.
func TestConfigProblems(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []strictyamltest.Want
	}{
		{"malformed yaml", "version: 1\nrepo: [a\n", []strictyamltest.Want{{"config.yaml", 2, 1, "invalid YAML"}}},
		{"unclosed flow at end", "version: 1\nforge: github\nlimits: {runs_per_scope_per_hour: 1\n\n", []strictyamltest.Want{{"config.yaml", 3, 1, "invalid YAML"}}},
		{"tab indentation", "version: 1\n\trepo: a/b\n", []strictyamltest.Want{{"config.yaml", 2, 1, "invalid YAML"}}},
		{"tab indentation later", "version: 1\nrepo: a/b\n\tagents: []\n", []strictyamltest.Want{{"config.yaml", 3, 1, "tab character"}}},
		{"tab inside list", "version: 1\nauthorization:\n  bot_accounts:\n    - a\n  \t- b\n", []strictyamltest.Want{{"config.yaml", 5, 3, "tab character"}}},
		{"empty file", "", []strictyamltest.Want{{"config.yaml", 1, 1, "file is empty"}}},
		{"not a mapping", "- a\n", []strictyamltest.Want{{"config.yaml", 1, 1, "config: want a mapping, got a list"}}},
		{"two documents", "version: 1\n---\nversion: 1\n", []strictyamltest.Want{{"config.yaml", 2, 1, "a second YAML document"}}},
		{"missing version", "repo: a/b\n", []strictyamltest.Want{{"config.yaml", 1, 1, "version: required"}}},
		{"wrong version", "version: 2\n", []strictyamltest.Want{{"config.yaml", 1, 10, "unsupported version 2"}}},
		{"version zero", "version: 0\n", []strictyamltest.Want{{"config.yaml", 1, 10, "unsupported version 0; want 1"}}},
		{"negative version", "version: -1\n", []strictyamltest.Want{{"config.yaml", 1, 10, "unsupported version -1; want 1"}}},
		{"version as string", "version: \"1\"\n", []strictyamltest.Want{{"config.yaml", 1, 10, "version: want an integer, got a string"}}},
		{"unknown top key", "version: 1\nrepos: a/b\n", []strictyamltest.Want{{"config.yaml", 2, 1, `unknown key "repos"`}}},
		{"duplicate key", "version: 1\nforge: github\nforge: gitlab\n", []strictyamltest.Want{{"config.yaml", 3, 1, `duplicate key "forge"`}}},
		{"unknown nested key", "version: 1\nlimits:\n  runs: 3\n", []strictyamltest.Want{{"config.yaml", 3, 3, `limits: unknown key "runs"`}}},
		{"bad forge", "version: 1\nforge: bitbucket\n", []strictyamltest.Want{{"config.yaml", 2, 8, `"bitbucket" is not one of github, gitlab`}}},
		{"bad min_role", "version: 1\nauthorization:\n  min_role: owner\n", []strictyamltest.Want{{"config.yaml", 3, 13, `authorization.min_role: "owner" is not one of`}}},
		{"bad scheduled_discovery", "version: 1\nauthorization:\n  scheduled_discovery: yes please\n", []strictyamltest.Want{{"config.yaml", 3, 24, `authorization.scheduled_discovery: "yes please" is not one of allow, deny`}}},
		{"scheduled_discovery as bool", "version: 1\nauthorization:\n  scheduled_discovery: true\n", []strictyamltest.Want{{"config.yaml", 3, 24, "authorization.scheduled_discovery: want a string, got a boolean"}}},
		{"bad output driver", "version: 1\npoll:\n  output_driver: fax\n", []strictyamltest.Want{{"config.yaml", 3, 18, `poll.output_driver: "fax"`}}},
		{"bad input driver type", "version: 1\npoll:\n  input_drivers:\n    - type: rss\n      queries: [q]\n", []strictyamltest.Want{{"config.yaml", 4, 13, `.type: "rss" is not one of jira-poll`}}},
		{"driver type missing", "version: 1\npoll:\n  input_drivers:\n    - queries: [q]\n", []strictyamltest.Want{{"config.yaml", 4, 7, "type is required"}}},
		{"driver queries missing", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n", []strictyamltest.Want{{"config.yaml", 4, 7, "at least one query"}}},
		{"empty query", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [\"\"]\n", []strictyamltest.Want{{"config.yaml", 5, 17, "queries[0]: must not be empty"}}},
		{"kill_switch not bool", "version: 1\nkill_switch: \"yes\"\n", []strictyamltest.Want{{"config.yaml", 2, 14, "kill_switch: want true or false, got a string"}}},
		{"repo as list", "version: 1\nrepo: [a]\n", []strictyamltest.Want{{"config.yaml", 2, 7, "repo: want a string, got a list"}}},
		{"bad repo", "version: 1\nrepo: acme/../x\n", []strictyamltest.Want{{"config.yaml", 2, 7, `".." segment not allowed`}}},
		{"short repo", "version: 1\nrepo: ab\n", []strictyamltest.Want{{"config.yaml", 2, 7, "3 to 512 characters"}}},
		{"bad duration", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      lock: {stale_threshold: 15}\n", []strictyamltest.Want{{"config.yaml", 6, 31, "want a duration"}}},
		{"unparsable duration", "version: 1\noutputs:\n  local: {grace: 5 minutes}\n", []strictyamltest.Want{{"config.yaml", 3, 18, `"5 minutes" is not a Go duration`}}},
		{"negative duration", "version: 1\noutputs:\n  local: {grace: -5s}\n", []strictyamltest.Want{{"config.yaml", 3, 18, "must be greater than 0"}}},
		{"zero runs", "version: 1\nlimits: {runs_per_scope_per_hour: 0}\n", []strictyamltest.Want{{"config.yaml", 2, 35, "must be at least 1, got 0"}}},
		{"zero trigger cost", "version: 1\nlimits:\n  trigger_cost: 0\n", []strictyamltest.Want{{"config.yaml", 3, 17, "limits.trigger_cost: must be at least 1, got 0"}}},
		{"trigger cost as text", "version: 1\nlimits:\n  trigger_cost: lots\n", []strictyamltest.Want{{"config.yaml", 3, 17, "limits.trigger_cost: want an integer"}}},
		{"trigger timeout without unit", "version: 1\nlimits: {trigger_timeout: 100}\n", []strictyamltest.Want{{"config.yaml", 2, 27, "limits.trigger_timeout: want a duration"}}},
		{"negative trigger timeout", "version: 1\nlimits: {trigger_timeout: -1s}\n", []strictyamltest.Want{{"config.yaml", 2, 27, "limits.trigger_timeout: must be greater than 0"}}},
		{"misspelled trigger limit", "version: 1\nlimits: {trigger_costs: 5}\n", []strictyamltest.Want{{"config.yaml", 2, 10, "trigger_costs"}}},
		{"negative concurrency", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      concurrency: -2\n", []strictyamltest.Want{{"config.yaml", 6, 20, "must be at least 1, got -2"}}},
		{"zero rps", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      rate_limit: {rps: 0, burst: 0}\n", []strictyamltest.Want{
			{"config.yaml", 6, 25, "rps: must be greater than 0"}, {"config.yaml", 6, 35, "burst: must be at least 1"}}},
		{"n greater than m", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      lock:\n        m: 3\n        n: 4\n", []strictyamltest.Want{{"config.yaml", 8, 12, "n (4) must not exceed m (3)"}}},
		{"n above default m", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      lock: {n: 51}\n", []strictyamltest.Want{{"config.yaml", 6, 17, "n (51) must not exceed m (50)"}}},
		{"pending ttl above stale", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      lock: {stale_threshold: 60s, refresh_interval: 20s, pending_ttl: 2m}\n", []strictyamltest.Want{{"config.yaml", 6, 72, "pending_ttl (2m0s) must not exceed stale_threshold (1m0s)"}}},
		{"refresh not below stale", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      lock: {refresh_interval: 15m}\n", []strictyamltest.Want{{"config.yaml", 6, 32, "must be shorter than stale_threshold"}}},
		{"jitter inverted", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      lock: {jitter_min: 2s, jitter_max: 1s}\n", []strictyamltest.Want{{"config.yaml", 6, 42, "jitter_min (2s) must not exceed jitter_max (1s)"}}},
		{"http base url", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      connection: {base_url: 'http://jira.example.com'}\n", []strictyamltest.Want{{"config.yaml", 6, 30, "plain http is only allowed for loopback"}}},
		{"bad env name", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      connection: {token_env: JIRA-TOKEN}\n", []strictyamltest.Want{{"config.yaml", 6, 31, "not a valid environment variable name"}}},
		{"bad request timeout", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      connection: {timeout: 0s}\n", []strictyamltest.Want{{"config.yaml", 6, 29, "connection.timeout: must be greater than 0"}}},
		{"bad retry budget", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      connection: {retry_budget: 1m30}\n", []strictyamltest.Want{{"config.yaml", 6, 34, "connection.retry_budget: \"1m30\" is not a Go duration"}}},
		{"negative max retries", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      connection: {max_retries: -1}\n", []strictyamltest.Want{{"config.yaml", 6, 33, "connection.max_retries: must be at least 0"}}},
		{"jira-poll without queries", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n", []strictyamltest.Want{{"config.yaml", 4, 7, "queries: at least one query is required"}}},
		{"bad gitlab-poll lookback", "version: 1\npoll:\n  input_drivers:\n    - type: gitlab-poll\n      lookback: 2\n", []strictyamltest.Want{{"config.yaml", 5, 17, "poll.input_drivers[0].lookback: want a duration"}}},
		{"negative gitlab-poll grace", "version: 1\npoll:\n  input_drivers:\n    - type: gitlab-poll\n      grace: -1m\n", []strictyamltest.Want{{"config.yaml", 5, 14, "poll.input_drivers[0].grace: must not be negative, got -1m"}}},
		{"unparsable github-poll grace", "version: 1\npoll:\n  input_drivers:\n    - type: github-poll\n      grace: 5 minutes\n", []strictyamltest.Want{{"config.yaml", 5, 14, `poll.input_drivers[0].grace: "5 minutes" is not a Go duration`}}},
		{"github-poll grace not a string", "version: 1\npoll:\n  input_drivers:\n    - type: github-poll\n      grace: 300\n", []strictyamltest.Want{{"config.yaml", 5, 14, "poll.input_drivers[0].grace: want a duration"}}},
		{"grace on jira-poll", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      grace: 0s\n", []strictyamltest.Want{{"config.yaml", 6, 14, "only gitlab-poll and github-poll entries take a grace"}}},
		{"requests_per_cycle on jira-poll", "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n      requests_per_cycle: 500\n", []strictyamltest.Want{{"config.yaml", 6, 27, "requests_per_cycle: only gitlab-poll and github-poll entries take it"}}},
		{"zero requests_per_cycle", "version: 1\npoll:\n  input_drivers:\n    - type: github-poll\n      requests_per_cycle: 0\n", []strictyamltest.Want{{"config.yaml", 5, 27, "poll.input_drivers[0].requests_per_cycle: must be at least 1, got 0"}}},
		{"requests_per_cycle not a number", "version: 1\npoll:\n  input_drivers:\n    - type: gitlab-poll\n      requests_per_cycle: lots\n", []strictyamltest.Want{{"config.yaml", 5, 27, "poll.input_drivers[0].requests_per_cycle: want an integer"}}},
		{"unknown gitlab-poll key", "version: 1\npoll:\n  input_drivers:\n    - type: gitlab-poll\n      projet: a/b\n", []strictyamltest.Want{{"config.yaml", 5, 7, `unknown key "projet"`}}},
		{"bad cycle timeout", "version: 1\npoll:\n  cycle_timeout: 5\n", []strictyamltest.Want{{"config.yaml", 3, 18, "poll.cycle_timeout: want a duration"}}},
		{"duplicate agent", "version: 1\nagents:\n  - {name: a, source: h/a.yaml}\n  - {name: a, source: h/a.yaml}\n", []strictyamltest.Want{{"config.yaml", 4, 12, `duplicate agent name "a" (first defined at line 3)`}}},
		{"agent without name", "version: 1\nagents:\n  - source: h/a.yaml\n", []strictyamltest.Want{{"config.yaml", 3, 5, "name is required"}}},
		{"agent without source", "version: 1\nagents:\n  - name: a\n", []strictyamltest.Want{{"config.yaml", 3, 5, "source is required"}}},
		{"agent with empty name", "version: 1\nagents:\n  - {name: '', source: h/a.yaml}\n", []strictyamltest.Want{{"config.yaml", 3, 12, `agents[0].name ""`}}},
		{"agent with empty source", "version: 1\nagents:\n  - {name: a, source: \"\"}\n", []strictyamltest.Want{{"config.yaml", 3, 23, "agents[0].source: must not be empty"}}},
		{"bad agent name", "version: 1\nagents:\n  - {name: 'a b', source: h/a.yaml}\n", []strictyamltest.Want{{"config.yaml", 3, 12, `agents[0].name "a b"`}}},
		{"enabled not bool", "version: 1\nagents:\n  - {name: a, source: h/a.yaml, enabled: 1}\n", []strictyamltest.Want{{"config.yaml", 3, 42, "enabled: want true or false, got an integer"}}},
		{"workflow with slash", "version: 1\noutputs:\n  gha-dispatch: {workflow: ../x.yml}\n", []strictyamltest.Want{{"config.yaml", 3, 28, "want a file name"}}},
		{"bad ref", "version: 1\noutputs:\n  gha-dispatch: {ref: 'a b'}\n", []strictyamltest.Want{{"config.yaml", 3, 23, "not a valid git ref name"}}},
		{"alias", "version: 1\nrepo: &r a/b\noutputs:\n  gitlab-pipeline: {project: *r}\n", []strictyamltest.Want{{"config.yaml", 4, 30, "aliases"}}},
		{"merge key", "version: 1\nlimits:\n  <<: {runs_per_scope_per_hour: 2}\n", []strictyamltest.Want{{"config.yaml", 3, 3, "merge keys"}}},
		{"all problems at once", "version: 3\nforge: x\nlimits: {runs_per_scope_per_hour: -1}\nextra: 1\n", []strictyamltest.Want{
			{"config.yaml", 1, 10, "unsupported version"}, {"config.yaml", 2, 8, `"x" is not one of`},
			{"config.yaml", 3, 35, "must be at least 1"}, {"config.yaml", 4, 1, `unknown key "extra"`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.WriteTree(t, map[string]string{"config.yaml": tc.yaml, "h/a.yaml": okHarness})
			c, err := Load(dir, nil)
			if c != nil {
				t.Errorf("Load returned a Config with problems")
			}
			strictyamltest.Check(t, err, tc.want)
			if !strings.Contains(err.Error(), "config.yaml:") {
				t.Errorf("rendered error lacks file name: %q", err.Error())
			}
		})
	}
}

func TestNullValuesKeepDefaults(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\nforge:\nlimits:\n  runs_per_scope_per_hour: ~\nauthorization: null\n"})
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Forge != "github" || c.Limits.RunsPerScopePerHour != 6 || c.Authorization.MinRole != "write" {
		t.Errorf("null values changed defaults: %+v", c)
	}
}

func TestErrorsRendering(t *testing.T) {
	es := strictyaml.Errors{{File: "b.yaml", Line: 2, Col: 1, Msg: "y"}, {File: "a.yaml", Line: 9, Col: 4, Msg: "x"}, {File: "$ENV", Msg: "z"}}
	es.Sort()
	if got, want := es.Error(), "$ENV: z\na.yaml:9:4: x\nb.yaml:2:1: y"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if (strictyaml.Errors{}).Err() != nil || es.Err() == nil {
		t.Error("Err() must be nil exactly when empty")
	}
}

func TestTriggerLimitsDecode(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{"config.yaml": "version: 1\nlimits:\n  trigger_cost: 5_000_000\n  trigger_timeout: 250ms\n"})
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.TriggerCost != 5_000_000 || c.Limits.TriggerTimeout != 250*time.Millisecond || c.Limits.RunsPerScopePerHour != 6 {
		t.Errorf("limits = %+v", c.Limits)
	}
}

func TestScheduledDiscoveryPolicy(t *testing.T) {
	cases := []struct {
		name, yaml string
		allow      bool
	}{
		{"absent", "version: 1\n", false},
		{"null", "version: 1\nauthorization: {scheduled_discovery: ~}\n", false},
		{"deny", "version: 1\nauthorization: {scheduled_discovery: deny}\n", false},
		{"allow", "version: 1\nauthorization: {scheduled_discovery: allow}\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(testfs.WriteTree(t, map[string]string{"config.yaml": tc.yaml}), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Authorization.AllowsScheduled() != tc.allow {
				t.Errorf("AllowsScheduled() = %v with %q, want %v", !tc.allow, c.Authorization.ScheduledDiscovery, tc.allow)
			}
		})
	}
	if (Authorization{ScheduledDiscovery: "Allow"}).AllowsScheduled() || (Authorization{}).AllowsScheduled() {
		t.Error("only the exact value allow may allow scheduled discovery")
	}
}
