// Package authz is the authorization gate: a deterministic decision, taken
// before any trigger is evaluated, on whether an event's actor may start
// agent runs at all. Every decision carries a reason meant for the log.
//
// Rules, in order:
//  1. Loop guard: events authored by the tool's own bot account (or any id
//     in the configured bot accounts) never start runs.
//  2. Bots never start runs through comments or commands.
//  3. Scheduled events come from the operator's own configuration and pass.
//  4. A GitHub label being added passes: GitHub already requires triage
//     rights to add a label.
//  5. Otherwise the actor's role must be at least the policy's minimum role,
//     in the order of event.Role (admin > maintain > write > triage > read >
//     none = external).
package authz

import (
	"fmt"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Decision is the gate's verdict and why.
type Decision struct {
	Allowed bool
	Reason  string
}

// Policy is the gate's configuration.
type Policy struct {
	MinRole event.Role      // lowest role whose events may start runs; "" means write
	BotIDs  map[string]bool // the tool's own account ids (loop guard)
}

// NewPolicy builds a policy from the configured minimum role and the ids of
// the tool's own accounts.
func NewPolicy(minRole event.Role, botIDs ...string) (Policy, error) {
	if minRole == "" {
		minRole = event.RoleWrite
	}
	if !minRole.Valid() {
		return Policy{}, fmt.Errorf("min_role %q: want one of %s", minRole, strings.Join(event.RoleNames(), ", "))
	}
	p := Policy{MinRole: minRole, BotIDs: map[string]bool{}}
	for _, id := range botIDs {
		if id != "" {
			p.BotIDs[id] = true
		}
	}
	return p, nil
}

// Decide applies the rules to ev. It is pure and safe for concurrent use.
func (p Policy) Decide(ev *event.Event) Decision {
	a := ev.Actor
	if p.BotIDs[a.ID] {
		return Decision{false, fmt.Sprintf("loop guard: actor %s is this tool's own account", a.ID)}
	}
	if a.Kind == event.ActorBot && isCommand(ev) {
		return Decision{false, fmt.Sprintf("bot actor %s may not trigger runs with comments or commands", a.ID)}
	}
	if ev.Source.System == event.SystemSchedule {
		return Decision{true, "scheduled event"}
	}
	if ev.Source.System == event.SystemGitHub && ev.Transition.Kind == event.LabelChanged &&
		ev.Transition.Label != nil && ev.Transition.Label.Action == "added" {
		return Decision{true, fmt.Sprintf("GitHub label %q added (labelling already requires triage rights)", ev.Transition.Label.Name)}
	}
	min := p.MinRole
	if min == "" {
		min = event.RoleWrite
	}
	if !a.Role.Valid() {
		return Decision{false, fmt.Sprintf("actor %s has unknown role %q", a.ID, a.Role)}
	}
	if !a.Role.AtLeast(min) {
		return Decision{false, fmt.Sprintf("actor %s has role %s, below min_role %s", a.ID, a.Role, min)}
	}
	return Decision{true, fmt.Sprintf("actor %s has role %s (min_role %s)", a.ID, a.Role, min)}
}

func isCommand(ev *event.Event) bool {
	if ev.Transition.Kind == event.CommentAdded {
		return true
	}
	c := ev.Transition.Comment
	return c != nil && c.Command != ""
}
