// Package resolvers builds the entity.Resolver of a source system from
// the configuration: the one place that maps a system name (jira, github,
// gitlab) to the package that resolves its entities. `fullsend dispatch`
// uses it to resolve an event's entity; each resolver package exports the
// constructor a Builder wraps.
package resolvers

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/resolvers/githubentity"
	"github.com/fullsend-dev/fullsend/internal/resolvers/gitlabentity"
	"github.com/fullsend-dev/fullsend/internal/resolvers/jiraentity"
)

// Builder builds a system's resolver from the configuration and the
// environment (credentials are read through getenv, never printed).
type Builder func(cfg *config.Config, getenv func(string) string) (entity.Resolver, error)

// builders maps each source system to its resolver's constructor: one
// line per system, the FromEnv of the system's resolver package.
var builders = map[string]Builder{
	entity.SystemJira:   Of(jiraentity.FromEnv),
	entity.SystemGitHub: Of(githubentity.FromEnv),
	entity.SystemGitLab: Of(gitlabentity.FromEnv),
}

// Of turns a resolver package's constructor (FromEnv, returning its own
// resolver type) into a Builder; a failed build is never a non-nil
// resolver.
func Of[R entity.Resolver](f func(cfg *config.Config, getenv func(string) string) (R, error)) Builder {
	return func(cfg *config.Config, getenv func(string) string) (entity.Resolver, error) {
		r, err := f(cfg, getenv)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// ErrNoResolver is the error of a system no resolver is built for: its
// entities cannot be resolved, so evaluation of them is denied.
var ErrNoResolver = errors.New("no entity resolver")

// New builds the resolver of system. A system without a builder is an
// error wrapping ErrNoResolver that names the systems that have one.
func New(system string, cfg *config.Config, getenv func(string) string) (entity.Resolver, error) {
	b, ok := builders[system]
	if !ok {
		return nil, fmt.Errorf("%w for system %q (resolvers are built for: %s)", ErrNoResolver, system, known())
	}
	r, err := b(cfg, getenv)
	if err != nil {
		return nil, fmt.Errorf("%s entity resolver: %w", system, err)
	}
	return r, nil
}

// known lists the systems with a builder, or "none".
func known() string {
	var names []string
	for s := range builders {
		names = append(names, s)
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
