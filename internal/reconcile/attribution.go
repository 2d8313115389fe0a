package reconcile

import (
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// RawType is the source.raw_type of a scheduled run's event.
const RawType = "reconcile"

// Scheduled describes one scheduled run for Attribute.
type Scheduled struct {
	Invoker  string // the poller: "<driver>:<poller id>"
	Policy   plan.AttributionPolicy
	Harness  string
	Revision string // the harness file's revision
	Attempt  int
	// Kept is the entity as the harness's trigger saw it: its activity
	// filtered to the retained elements.
	Kept *entity.Entity
}

// Attribute builds the audit record of a scheduled run: s's invoker,
// policy and harness revision, the entity's identity and version, and
// the retained elements with their actors (the newest
// plan.MaxAttributedElements).
func Attribute(s Scheduled) *plan.Attribution {
	en := s.Kept
	a := &plan.Attribution{Invoker: s.Invoker, Repo: en.Repo, Policy: s.Policy, Harness: s.Harness,
		Revision: s.Revision, Entity: en.Ref().String(), Key: en.Key, Version: en.Version, Attempt: s.Attempt,
		Elements: []plan.AttributedElement{}}
	for i, el := range en.Activity {
		if i == plan.MaxAttributedElements {
			a.ElementsTruncated = true
			break
		}
		a.Elements = append(a.Elements, plan.AttributedElement{Kind: el.Kind, ID: el.ID, Actor: el.Actor.ID, Role: string(el.Actor.Role)})
	}
	return a
}

// Event is the NormalizedEvent a scheduled run carries as its context
// (the runner's event file): source.system "schedule", transition
// "updated", the entity's identity and labels, and the invoker as a bot
// actor. The harness's trigger never sees it (event is null for it); the
// scope key it yields is the entity's, so a scheduled and an event-backed
// run of one harness and entity share one scope.
func Event(en *entity.Entity, invoker string) *event.Event {
	ev := &event.Event{
		Repo:       en.Repo,
		Entity:     event.Entity{Kind: en.Kind, ID: en.ID, URL: en.URL, Key: en.Key, LinkedChangeProposal: en.LinkedChangeProposal},
		Transition: event.Transition{Kind: event.Updated},
		Actor:      event.Actor{ID: invoker, Kind: event.ActorBot, Role: event.RoleNone},
		State:      event.State{Labels: append([]string{}, en.State.Labels...), LabelsTruncated: en.State.LabelsTruncated},
		Source:     event.Source{System: event.SystemSchedule, RawType: RawType},
	}
	if cp := en.State.ChangeProposal; cp != nil && en.Kind == entity.KindChangeProposal {
		ev.State.ChangeProposal = &event.ChangeProposal{ID: en.ID, HeadRepo: en.Repo, BaseRepo: en.Repo,
			HeadRef: cp.HeadRef, BaseRef: cp.BaseRef, AuthorID: en.State.Author, IsFork: cp.Fork, HeadSHA: cp.HeadSHA}
	}
	return ev
}

// IdempotencyKey is the key of a scheduled run: its scope key, "@" and
// the entity version it is for, so that every poller, and a poller after
// a crash, names the same run the same way.
func IdempotencyKey(scopeKey, version string) string { return scopeKey + "@" + version }
