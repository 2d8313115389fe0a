package jiraentity

import (
	"errors"
	"fmt"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// Entry is the index of the poll.input_drivers entry whose connection
// Jira entities are read with: the first jira-poll entry. Every jira-poll
// entry must name the same site (an issue id means one issue on one
// site). No jira-poll entry, or entries on different sites, is
// config.Invalid.
func Entry(cfg *config.Config) (int, error) {
	first := -1
	for i, in := range cfg.Poll.InputDrivers {
		if in.Type != drivername.JiraPoll {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		if a, b := cfg.Poll.InputDrivers[first].Connection.BaseURL, in.Connection.BaseURL; a != b {
			return -1, config.Invalid(fmt.Errorf("%s: poll.input_drivers[%d] and [%d] are %s entries for two Jira sites (%s, %s): Jira entities are read from one site; keep the entries of one site in this configuration",
				cfg.File, first, i, drivername.JiraPoll, a, b))
		}
	}
	if first < 0 {
		return -1, config.Invalid(fmt.Errorf("%s: a harness resolves Jira entities but poll.input_drivers has no %s entry: Jira entities are read with its connection (base_url, email_env, token_env, rate_limit)",
			cfg.File, drivername.JiraPoll))
	}
	return first, nil
}

// FromEnv builds the Resolver of a configuration: the Jira client of its
// jira-poll entry (Entry), connected the way `fullsend poll` connects it
// (config.JiraOptions: its credentials from the variables it names, its
// rate limit, Jira's clock read from the answers), the target
// repository cfg.Repo, the roles of the entry's project (of each issue's
// own project when the entries name different projects or none), and
// authorization.bot_accounts as the tool's own accounts. Bad settings or
// a missing credential are config.Invalid.
func FromEnv(cfg *config.Config, getenv func(string) string) (*Resolver, error) {
	i, err := Entry(cfg)
	if err != nil {
		return nil, err
	}
	id := cfg.Poll.InputDrivers[i]
	opts, err := config.JiraOptions(id, getenv, nil)
	if err != nil {
		return nil, err
	}
	opts.Clock = trackerclock.New(opts.Now) // Jira's clock, from its answers
	c, err := jira.New(opts)
	if err != nil {
		return nil, config.Invalid(err)
	}
	return New(c, Options{SiteURL: id.Connection.BaseURL, Repo: cfg.Repo, Project: project(cfg),
		BotAccounts: cfg.Authorization.BotAccounts}), nil
}

// project is the project every jira-poll entry names, or "" when they
// differ or name none.
func project(cfg *config.Config) string {
	p, seen := "", false
	for _, in := range cfg.Poll.InputDrivers {
		if in.Type != drivername.JiraPoll {
			continue
		}
		if seen && in.Project != p {
			return ""
		}
		p, seen = in.Project, true
	}
	return p
}

// ErrNoClient is returned by Client when the Resolver's client is not a
// *jira.Client.
var ErrNoClient = errors.New("jira entity: the resolver's client is not a Jira client")

// Client is the Jira client the Resolver reads through, for callers that
// count its calls (CallsTotal) or read more with it (a sweep's search).
func (r *Resolver) Client() (*jira.Client, error) {
	c, ok := r.api.(*jira.Client)
	if !ok {
		return nil, ErrNoClient
	}
	return c, nil
}
