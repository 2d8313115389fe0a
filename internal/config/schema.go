package config

import (
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// Allowed enum values.
var (
	forges        = []string{"github", "gitlab"}
	outputDrivers = drivername.OutputNames()
	inputDrivers  = drivername.PollInputNames()
)

// configWalk decodes the config.yaml root into c, which already holds the
// defaults. Nodes needed by checks made after the walk are kept here.
type configWalk struct {
	*strictyaml.Decoder
	c       *Config
	repoPos *yaml.Node
	baseURL map[int]*yaml.Node // input driver index -> base_url node
}

func (w *configWalk) root(n *yaml.Node) {
	var versionNode *yaml.Node
	w.Fields(n, "config", map[string]func(*yaml.Node){
		"version": func(v *yaml.Node) {
			versionNode = v
			before := len(w.Problems)
			var ver int
			w.IntMin(v, "version", math.MinInt32, &ver)
			if len(w.Problems) == before {
				w.c.Version = ver
				if ver != 1 {
					w.ErrAt(v, "version: unsupported version %d; want 1", ver)
				}
			}
		},
		"repo": func(v *yaml.Node) {
			w.repoPos = v
			w.Str(v, "repo", &w.c.Repo)
		},
		"forge":       func(v *yaml.Node) { w.Enum(v, "forge", &w.c.Forge, forges...) },
		"kill_switch": func(v *yaml.Node) { w.Boolean(v, "kill_switch", &w.c.KillSwitch) },
		"agents":      w.agents,
		"authorization": func(v *yaml.Node) {
			a := &w.c.Authorization
			w.Fields(v, "authorization", map[string]func(*yaml.Node){
				"min_role":     func(v *yaml.Node) { w.Role(v, "authorization.min_role", &a.MinRole) },
				"bot_accounts": func(v *yaml.Node) { w.StrList(v, "authorization.bot_accounts", &a.BotAccounts, nonEmpty) },
				"scheduled_discovery": func(v *yaml.Node) {
					w.Enum(v, "authorization.scheduled_discovery", &a.ScheduledDiscovery, ScheduledAllow, ScheduledDeny)
				},
			})
		},
		"limits": func(v *yaml.Node) {
			w.Fields(v, "limits", map[string]func(*yaml.Node){
				"runs_per_scope_per_hour": func(v *yaml.Node) {
					w.IntMin(v, "limits.runs_per_scope_per_hour", 1, &w.c.Limits.RunsPerScopePerHour)
				},
				"trigger_cost":    func(v *yaml.Node) { w.IntMin(v, "limits.trigger_cost", 1, &w.c.Limits.TriggerCost) },
				"trigger_timeout": func(v *yaml.Node) { w.Duration(v, "limits.trigger_timeout", &w.c.Limits.TriggerTimeout) },
			})
		},
		"poll":    w.poll,
		"outputs": w.outputs,
	})
	if n != nil && n.Kind == yaml.MappingNode && versionNode == nil {
		w.ErrAt(n, "version: required; add \"version: 1\"")
	}
}

func (w *configWalk) agents(n *yaml.Node) {
	names := map[string]*yaml.Node{}
	w.Seq(n, "agents", func(i int, e *yaml.Node) {
		what := fmt.Sprintf("agents[%d]", i)
		a := Agent{Line: e.Line, Col: e.Column}
		var nameNode, srcNode *yaml.Node
		w.Fields(e, what, map[string]func(*yaml.Node){
			"name":   func(v *yaml.Node) { nameNode = v; w.Str(v, what+".name", &a.Name) },
			"source": func(v *yaml.Node) { srcNode = v; w.Str(v, what+".source", &a.Source) },
			"enabled": func(v *yaml.Node) {
				var b bool
				w.Boolean(v, what+".enabled", &b)
				a.Enabled = &b
			},
		})
		if e.Kind != yaml.MappingNode {
			return
		}
		switch {
		case nameNode == nil:
			w.ErrAt(e, "%s: name is required", what)
		case a.Name != "" || isString(nameNode):
			if err := CheckAgentName(a.Name); err != nil {
				w.ErrAt(nameNode, "%s.%v", what, err)
			} else if prev, dup := names[a.Name]; dup {
				w.ErrAt(nameNode, "%s: duplicate agent name %q (first defined at line %d)", what, a.Name, prev.Line)
			} else {
				names[a.Name] = nameNode
			}
		}
		if srcNode == nil {
			w.ErrAt(e, "%s: source is required", what)
		} else if a.Source == "" && isString(srcNode) {
			w.ErrAt(srcNode, "%s.source: must not be empty", what)
		} else if a.Source != "" {
			if p, err := resolveSource(w.c.Dir, a.Source); err != nil {
				w.ErrAt(srcNode, "%s.source: %v", what, err)
			} else {
				a.Path = p
			}
		}
		w.c.Agents = append(w.c.Agents, a)
	})
}

func (w *configWalk) poll(n *yaml.Node) {
	p := &w.c.Poll
	w.Fields(n, "poll", map[string]func(*yaml.Node){
		"output_driver": func(v *yaml.Node) { w.Enum(v, "poll.output_driver", &p.OutputDriver, outputDrivers...) },
		"cycle_timeout": func(v *yaml.Node) { w.Duration(v, "poll.cycle_timeout", &p.CycleTimeout) },
		"input_drivers": func(v *yaml.Node) {
			w.Seq(v, "poll.input_drivers", func(i int, e *yaml.Node) {
				p.InputDrivers = append(p.InputDrivers, w.inputDriver(i, e))
			})
		},
	})
}

func (w *configWalk) inputDriver(i int, n *yaml.Node) InputDriver {
	what := fmt.Sprintf("poll.input_drivers[%d]", i)
	d := defaultInputDriver()
	var typeNode, queriesNode, mNode, nNode, staleNode, refreshNode, pendingNode, jitterNode, cursorNode, graceNode, requestsNode *yaml.Node
	w.Fields(n, what, map[string]func(*yaml.Node){
		"type": func(v *yaml.Node) { typeNode = v; w.Enum(v, what+".type", &d.Type, inputDrivers...) },
		"connection": func(v *yaml.Node) {
			c := &d.Connection
			w.Fields(v, what+".connection", map[string]func(*yaml.Node){
				"base_url": func(v *yaml.Node) {
					w.baseURL[i] = v
					w.Str(v, what+".connection.base_url", &c.BaseURL)
				},
				"email_env": func(v *yaml.Node) { w.envName(v, what+".connection.email_env", &c.EmailEnv) },
				"token_env": func(v *yaml.Node) { w.envName(v, what+".connection.token_env", &c.TokenEnv) },
				"timeout":   func(v *yaml.Node) { w.Duration(v, what+".connection.timeout", &c.Timeout) },
				"retry_budget": func(v *yaml.Node) {
					w.Duration(v, what+".connection.retry_budget", &c.RetryBudget)
				},
				"max_retries": func(v *yaml.Node) {
					if w.IntMin(v, what+".connection.max_retries", 0, &c.MaxRetries); c.MaxRetries == 0 {
						c.MaxRetries = NoRetries
					}
				},
			})
		},
		"project": func(v *yaml.Node) { w.Str(v, what+".project", &d.Project) },
		"queries": func(v *yaml.Node) { queriesNode = v; w.StrList(v, what+".queries", &d.Queries, nonEmpty) },
		"lock": func(v *yaml.Node) {
			l := &d.Lock
			w.Fields(v, what+".lock", map[string]func(*yaml.Node){
				"m":                func(v *yaml.Node) { mNode = v; w.IntMin(v, what+".lock.m", 1, &l.M) },
				"n":                func(v *yaml.Node) { nNode = v; w.IntMin(v, what+".lock.n", 1, &l.N) },
				"stale_threshold":  func(v *yaml.Node) { staleNode = v; w.Duration(v, what+".lock.stale_threshold", &l.StaleThreshold) },
				"refresh_interval": func(v *yaml.Node) { refreshNode = v; w.Duration(v, what+".lock.refresh_interval", &l.RefreshInterval) },
				"pending_ttl":      func(v *yaml.Node) { pendingNode = v; w.Duration(v, what+".lock.pending_ttl", &l.PendingTTL) },
				"jitter_min":       func(v *yaml.Node) { w.Duration(v, what+".lock.jitter_min", &l.JitterMin) },
				"jitter_max":       func(v *yaml.Node) { jitterNode = v; w.Duration(v, what+".lock.jitter_max", &l.JitterMax) },
			})
			if l.N > l.M {
				w.ErrAt(firstNode(nNode, mNode, v), "%s.lock: n (%d) must not exceed m (%d)", what, l.N, l.M)
			}
			if l.RefreshInterval >= l.StaleThreshold {
				at := firstNode(refreshNode, staleNode, v)
				w.ErrAt(at, "%s.lock: refresh_interval (%s) must be shorter than stale_threshold (%s), or a held lock goes stale between refreshes", what, l.RefreshInterval, l.StaleThreshold)
			}
			if pendingNode != nil && l.PendingTTL > l.StaleThreshold {
				w.ErrAt(pendingNode, "%s.lock: pending_ttl (%s) must not exceed stale_threshold (%s)", what, l.PendingTTL, l.StaleThreshold)
			}
			if l.JitterMin > l.JitterMax {
				w.ErrAt(firstNode(jitterNode, v), "%s.lock: jitter_min (%s) must not exceed jitter_max (%s)", what, l.JitterMin, l.JitterMax)
			}
		},
		"cursor":             func(v *yaml.Node) { cursorNode = w.cursor(v, what, &d) },
		"concurrency":        func(v *yaml.Node) { w.IntMin(v, what+".concurrency", 1, &d.Concurrency) },
		"lookback":           func(v *yaml.Node) { w.Duration(v, what+".lookback", &d.Lookback) },
		"grace":              func(v *yaml.Node) { graceNode = v; w.DurationMin0(v, what+".grace", &d.Grace) },
		"requests_per_cycle": func(v *yaml.Node) { requestsNode = v; w.IntMin(v, what+".requests_per_cycle", 1, &d.RequestsPerCycle) },
		"rate_limit": func(v *yaml.Node) {
			r := &d.RateLimit
			w.Fields(v, what+".rate_limit", map[string]func(*yaml.Node){
				"rps":   func(v *yaml.Node) { w.PositiveFloat(v, what+".rate_limit.rps", &r.RPS) },
				"burst": func(v *yaml.Node) { w.IntMin(v, what+".rate_limit.burst", 1, &r.Burst) },
			})
		},
	})
	w.checkCursor(cursorNode, what, &d)
	if n.Kind == yaml.MappingNode {
		if typeNode == nil {
			w.ErrAt(n, "%s: type is required (%s)", what, strings.Join(inputDrivers, " or "))
		}
		w.checkForge(graceNode, requestsNode, what, &d)
		if d.Type == drivername.JiraPoll && (queriesNode == nil || (queriesNode.Kind == yaml.SequenceNode && len(queriesNode.Content) == 0)) {
			w.ErrAt(firstNode(queriesNode, n), "%s: queries: at least one query is required", what)
		}
	}
	return d
}

// checkForge defaults the settings of a forge poller (grace,
// requests_per_cycle) and refuses them on a jira-poll entry.
func (w *configWalk) checkForge(graceNode, requestsNode *yaml.Node, what string, d *InputDriver) {
	forge := d.Type == drivername.GitLabPoll || d.Type == drivername.GitHubPoll
	if graceNode == nil && forge {
		d.Grace = DefaultPollGrace
	}
	if requestsNode == nil && forge {
		d.RequestsPerCycle = DefaultRequestsPerCycle
	}
	if d.Type != drivername.JiraPoll {
		return
	}
	if graceNode != nil {
		w.ErrAt(graceNode, "%s.grace: only gitlab-poll and github-poll entries take a grace", what)
	}
	if requestsNode != nil {
		w.ErrAt(requestsNode, "%s.requests_per_cycle: only gitlab-poll and github-poll entries take it; a jira-poll cycle works on lock.n issues", what)
	}
}

// isString reports whether n is a string scalar (so an empty value was
// written as "" rather than left out or given the wrong type).
func isString(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!str" }

// firstNode returns the first non-nil node, for reporting a cross-field
// problem at the most specific position available.
func firstNode(ns ...*yaml.Node) *yaml.Node {
	for _, n := range ns {
		if n != nil {
			return n
		}
	}
	return nil
}

func (w *configWalk) envName(v *yaml.Node, what string, dst *string) {
	var s string
	w.Str(v, what, &s)
	if s == "" {
		return
	}
	if err := CheckEnvName(s); err != nil {
		w.ErrAt(v, "%s: %v", what, err)
		return
	}
	*dst = s
}

func (w *configWalk) outputs(n *yaml.Node) {
	o := &w.c.Outputs
	w.Fields(n, "outputs", map[string]func(*yaml.Node){
		drivername.GHADispatch: func(v *yaml.Node) {
			w.Fields(v, "outputs."+drivername.GHADispatch, map[string]func(*yaml.Node){
				"workflow": func(v *yaml.Node) {
					w.checked(v, "outputs.gha-dispatch.workflow", &o.GHADispatch.Workflow, CheckWorkflow)
				},
				"ref": func(v *yaml.Node) { w.checked(v, "outputs.gha-dispatch.ref", &o.GHADispatch.Ref, checkRef) },
			})
		},
		drivername.GitLabPipeline: func(v *yaml.Node) {
			w.Fields(v, "outputs."+drivername.GitLabPipeline, map[string]func(*yaml.Node){
				"project": func(v *yaml.Node) {
					w.checked(v, "outputs.gitlab-pipeline.project", &o.GitLabPipeline.Project, CheckRepo)
				},
				"ref": func(v *yaml.Node) { w.checked(v, "outputs.gitlab-pipeline.ref", &o.GitLabPipeline.Ref, checkRef) },
			})
		},
		drivername.Local: func(v *yaml.Node) {
			w.Fields(v, "outputs."+drivername.Local, map[string]func(*yaml.Node){
				"max_parallel": func(v *yaml.Node) { w.IntMin(v, "outputs.local.max_parallel", 1, &o.Local.MaxParallel) },
				"grace":        func(v *yaml.Node) { w.Duration(v, "outputs.local.grace", &o.Local.Grace) },
			})
		},
	})
}

// checked decodes a string and validates it with check.
func (w *configWalk) checked(v *yaml.Node, what string, dst *string, check func(string) error) {
	var s string
	w.Str(v, what, &s)
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!str" && v.Tag != "!!int") {
		return
	}
	if err := check(s); err != nil {
		w.ErrAt(v, "%s: %v", what, err)
		return
	}
	*dst = s
}
