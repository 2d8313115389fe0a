package harness

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// This file is the one loader of harness files. Every entry point (LoadDir
// for dispatch and poll, Find for run, Check for validate, Load and
// LoadAll for hand-built configurations) goes through loadAgent, which
// keeps each file inside the config directory (config.ResolveSource:
// relative path, no ".." component, symlinks resolved) before reading it.

// LoadDir loads <dir>/config.yaml and every enabled harness, returning the
// problems of the config file and of all harness files together: those of
// config.yaml first, then each harness file's in agents order.
func LoadDir(dir string, getenv func(string) string) (*config.Config, *Registry, error) {
	cfg, hs, probs := load(dir, getenv, false)
	if len(probs) > 0 {
		return nil, nil, probs
	}
	return cfg, NewRegistry(hs...), nil
}

// Check loads <dir>/config.yaml and every registered harness, disabled
// ones too, as `fullsend validate` does: it returns the best-effort
// Config (nil only when config.yaml could not be read), the harnesses that
// loaded, in configuration order, and every problem (config.yaml first).
func Check(dir string, getenv func(string) string) (*config.Config, []*Harness, strictyaml.Errors) {
	return load(dir, getenv, true)
}

func load(dir string, getenv func(string) string, all bool) (*config.Config, []*Harness, strictyaml.Errors) {
	cfg, probs := config.LoadLenient(dir, getenv)
	if cfg == nil {
		return nil, nil, probs
	}
	// Agents whose source the config loader refused have no Path and were
	// reported already: skip them so each problem is listed once.
	hs, hprobs := loadAgents(cfg, all, false)
	return cfg, hs, append(probs, hprobs...)
}

// Load loads the harness file of every enabled agent in cfg and compiles
// its trigger. All problems of all files are returned together as
// strictyaml.Errors; trigger compile errors read
// "harnessfile:line:col: trigger: msg" with the position mapped from the
// expression into the file.
func Load(cfg *config.Config) (*Registry, error) {
	hs, probs := loadAgents(cfg, false, true)
	if len(probs) > 0 {
		return nil, probs
	}
	return NewRegistry(hs...), nil
}

// LoadAll loads and compiles every agent's harness, disabled ones too, and
// returns them in configuration order with every problem.
func LoadAll(cfg *config.Config) ([]*Harness, error) {
	hs, probs := loadAgents(cfg, true, true)
	if len(probs) > 0 {
		return nil, probs
	}
	return hs, nil
}

// Find loads the one enabled harness registered as name in cfg, as
// `fullsend run` needs it: the other harness files are not read. An
// unknown or disabled harness is an error naming config.yaml; a file with
// problems returns them as strictyaml.Errors (file:line:col).
func Find(cfg *config.Config, name string) (*Harness, error) {
	for _, a := range cfg.Agents {
		if a.Name != name {
			continue
		}
		if !a.IsEnabled() {
			return nil, fmt.Errorf("harness %q is disabled in %s (agents entry enabled: false)", name, cfg.File)
		}
		h, probs := loadAgent(cfg, a, true, TriggerLimits(cfg.Limits))
		if len(probs) > 0 {
			return nil, probs
		}
		return h, nil
	}
	return nil, fmt.Errorf("harness %q is not registered in %s (agents)", name, cfg.File)
}

// loadAgents loads the agents of cfg (only enabled ones unless all) and
// collects every problem.
func loadAgents(cfg *config.Config, all, resolve bool) ([]*Harness, strictyaml.Errors) {
	var out []*Harness
	var probs strictyaml.Errors
	lim := TriggerLimits(cfg.Limits)
	for _, a := range cfg.Agents {
		if !all && !a.IsEnabled() {
			continue
		}
		h, hp := loadAgent(cfg, a, resolve, lim)
		probs = append(probs, hp...)
		if h != nil {
			out = append(out, h)
		}
	}
	return out, probs
}

// TriggerLimits converts the limits: section of config.yaml into the
// bounds of one trigger evaluation (unset values take trigger's defaults).
// limits.trigger_timeout bounds nothing: evaluation is bounded by its cost
// alone, so that a decision never depends on the machine's load.
func TriggerLimits(l config.Limits) trigger.Limits {
	return trigger.Limits{Cost: uint64(max(l.TriggerCost, 0))}
}

// loadAgent loads one agent's harness. An agent without a resolved Path
// (config.Load sets it once the source passed the containment check) is
// resolved here with the same check when resolve is set (a hand-built
// Config); a refused source is a problem at the agents entry in
// config.yaml. Without resolve such an agent is skipped: the config
// loader has already reported its source.
func loadAgent(cfg *config.Config, a config.Agent, resolve bool, lim trigger.Limits) (*Harness, strictyaml.Errors) {
	if a.Path == "" {
		if !resolve {
			return nil, nil
		}
		p, err := config.ResolveSource(cfg.Dir, a.Source)
		if err != nil {
			return nil, strictyaml.Errors{{File: cfg.File, Line: a.Line, Col: a.Col,
				Msg: fmt.Sprintf("agent %q: source: %v", a.Name, err)}}
		}
		a.Path = p
	}
	return loadOne(a, lim, cfg.Authorization.MinRole)
}

// loadOne reads one agent's harness file and compiles its trigger and
// its overlays' `when` under lim: over `event` alone, or, for a harness
// with an `entity:` key, over `entity` and a nullable `event` (its
// min_role defaulting to defaultMin, authorization.min_role).
func loadOne(a config.Agent, lim trigger.Limits, defaultMin event.Role) (*Harness, strictyaml.Errors) {
	ch, probs := ReadFile(a.Path, a.Name)
	if ch == nil {
		return nil, probs
	}
	h := &Harness{
		Name: ch.Name, Role: ch.Role, File: ch.File, Revision: ch.Revision, TriggerText: ch.Trigger,
		Workflow: ch.Dispatch.Workflow, Command: ch.Run.Command, Timeout: ch.Run.Timeout,
		Env: ch.Run.Env, User: ch.Run.User, Isolation: ch.Run.Isolation, Enabled: a.IsEnabled(),
		CommandLine: ch.Run.CommandLine, CommandCol: ch.Run.CommandCol,
		TriggerLine: ch.TriggerLine, TriggerCol: ch.TriggerCol, Report: ch.Report, Steer: ch.Steer,
	}
	compile := trigger.CompileWith
	if e := ch.Entity; e != nil {
		h.Entity = &EntitySources{Sources: e.Sources, MinRole: cmp.Or(e.MinRole, defaultMin),
			Every: e.Every, RetryMax: e.Retry.Max, RetryBackoff: e.Retry.Backoff}
		compile = trigger.CompileEntity
	}
	t, err := compile(ch.Trigger, lim)
	var ce *trigger.CompileError
	switch {
	case err == nil:
		h.Trigger = t
	case errors.As(err, &ce):
		for _, p := range ce.All() {
			line, col := ch.TriggerPos(p.Line, p.Col)
			probs = append(probs, strictyaml.Problem{File: ch.File, Line: line, Col: col, Msg: "trigger: " + p.Msg})
		}
	default:
		probs = append(probs, strictyaml.Problem{File: ch.File, Line: ch.TriggerLine, Col: ch.TriggerCol, Msg: "trigger: " + err.Error()})
	}
	ovs, oprobs := compileOverlays(ch, compile, lim)
	h.Overlays, probs = ovs, append(probs, oprobs...)
	if len(probs) > 0 {
		probs.Sort()
		return nil, probs
	}
	return h, nil
}

// Warnings returns what `fullsend validate` warns about in loaded
// harnesses' triggers: an entity-source harness whose trigger can never
// match without an event (trigger.Trigger.NeverWithoutEvent) will never
// fire from scheduled discovery.
func Warnings(hs []*Harness) strictyaml.Errors {
	var out strictyaml.Errors
	for _, h := range hs {
		if h.Entity != nil && h.Trigger != nil && h.Trigger.NeverWithoutEvent() {
			out = append(out, strictyaml.Problem{File: h.File, Line: h.TriggerLine, Col: h.TriggerCol,
				Msg: "WARNING: trigger: never matches when event is null, so it will never fire from scheduled discovery " +
					"(add a condition on the entity's state, docs/triggers.md)"})
		}
	}
	return out
}
