package harness

import (
	"errors"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// Load loads the harness file of every enabled agent in cfg and compiles
// its trigger. All problems of all files are returned together as
// config.Errors; trigger compile errors read
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
// returns them in configuration order with every problem. It is what
// `fullsend validate` checks; runs use Load.
func LoadAll(cfg *config.Config) ([]*Harness, error) {
	hs, probs := loadAgents(cfg, true, true)
	if len(probs) > 0 {
		return nil, probs
	}
	return hs, nil
}

// LoadDir loads <dir>/config.yaml and every enabled harness, returning the
// problems of the config file and of all harness files together: those of
// config.yaml first, then each harness file's in agents order.
func LoadDir(dir string, getenv func(string) string) (*config.Config, *Registry, error) {
	cfg, probs := config.LoadLenient(dir, getenv)
	if cfg == nil {
		return nil, nil, probs
	}
	hs, hprobs := loadAgents(cfg, false, false)
	probs = append(probs, hprobs...)
	if len(probs) > 0 {
		return nil, nil, probs
	}
	return cfg, NewRegistry(hs...), nil
}

// loadAgents loads the agents of cfg (only enabled ones unless all) and
// collects every problem. An agent without a resolved Path is resolved
// here when resolve is set (a hand-built Config); otherwise it is skipped
// because the config loader has already reported its source.
func loadAgents(cfg *config.Config, all, resolve bool) ([]*Harness, config.Errors) {
	var out []*Harness
	var probs config.Errors
	lim := TriggerLimits(cfg.Limits)
	for _, a := range cfg.Agents {
		if !all && !a.IsEnabled() {
			continue
		}
		if a.Path == "" {
			if !resolve {
				continue
			}
			p, err := config.ResolveSource(cfg.Dir, a.Source)
			if err != nil {
				probs = append(probs, config.Problem{File: cfg.File, Line: a.Line, Col: a.Col,
					Msg: fmt.Sprintf("agent %q: source: %v", a.Name, err)})
				continue
			}
			a.Path = p
		}
		h, hp := loadOne(a, lim)
		probs = append(probs, hp...)
		if h != nil {
			out = append(out, h)
		}
	}
	return out, probs
}

// TriggerLimits converts the limits: section of config.yaml into the
// bounds of one trigger evaluation (unset values take trigger's defaults).
func TriggerLimits(l config.Limits) trigger.Limits {
	return trigger.Limits{Cost: uint64(max(l.TriggerCost, 0)), Timeout: l.TriggerTimeout}
}

// loadOne reads one agent's harness file and compiles its trigger under lim.
func loadOne(a config.Agent, lim trigger.Limits) (*Harness, config.Errors) {
	ch, probs := config.LoadHarnessLenient(a.Path, a.Name)
	if ch == nil {
		return nil, probs
	}
	h := &Harness{
		Name: ch.Name, Role: ch.Role, File: ch.File, TriggerText: ch.Trigger,
		Workflow: ch.Dispatch.Workflow, Command: ch.Run.Command, Timeout: ch.Run.Timeout,
		Env: ch.Run.Env, Enabled: a.IsEnabled(),
	}
	t, err := trigger.CompileWith(ch.Trigger, lim)
	var ce *trigger.CompileError
	switch {
	case err == nil:
		h.Trigger = t
	case errors.As(err, &ce):
		for _, p := range ce.All() {
			line, col := ch.TriggerPos(p.Line, p.Col)
			probs = append(probs, config.Problem{File: ch.File, Line: line, Col: col, Msg: "trigger: " + p.Msg})
		}
	default:
		probs = append(probs, config.Problem{File: ch.File, Line: ch.TriggerLine, Col: ch.TriggerCol, Msg: "trigger: " + err.Error()})
	}
	if len(probs) > 0 {
		probs.Sort()
		return nil, probs
	}
	return h, nil
}
