package entity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Bound orders elements newest first (ties keep their order) and keeps the
// newest MaxActivity of them; truncated reports whether older ones were
// cut (Entity.ActivityTruncated). The result is never nil; elements is not
// modified.
func Bound(elements []Element) (activity []Element, truncated bool) {
	out := newestFirst(elements)
	if len(out) > MaxActivity {
		return out[:MaxActivity:MaxActivity], true
	}
	return out, false
}

// newestFirst is a copy of elements ordered newest first (ties keep
// their order), never nil.
func newestFirst(elements []Element) []Element {
	out := slices.Clone(elements)
	if out == nil {
		out = []Element{}
	}
	slices.SortStableFunc(out, func(a, b Element) int { return b.Created.Compare(a.Created) })
	return out
}

// versionPrefix marks the version scheme ComputeVersion produces.
const versionPrefix = "v1:"

// ComputeVersion returns the version of e's content: a digest of its
// identity, state and activity. Actors' roles, the receipt and the
// version itself are left out: a role is resolved at evaluation time and
// says nothing about whether the entity changed. Any change of the state
// (an update time, a label) or of the activity (a new, edited or removed
// element) changes it.
//
// own, when not nil, names the tool's own accounts (by actor id): what
// they did is not a change, so that a run's own effects never make its
// entity due again. Their elements are left out, so are the labels whose
// newest application in the activity is theirs, and so is the update
// time (which their writes move); every other change still gives a new
// version.
//
// The digest covers the newest MaxActivity elements that are not the
// tool's own (Bound after own ones are left out), so e.Activity should
// hold every element read, not only the bounded activity (VersionOver):
// otherwise a comment of the tool's own on a busy entity pushes another
// element out of the bound, and so changes the version.
// e.ActivityTruncated then says whether the reads were cut.
func ComputeVersion(e *Entity, own func(actorID string) bool) string {
	c := *e
	c.Version, c.Receipt = "", nil
	all := newestFirst(e.Activity)
	kept := make([]Element, 0, min(len(all), MaxActivity))
	ownLabels := map[string]bool{}
	seen := map[string]bool{}
	for _, el := range all {
		mine := own != nil && own(el.Actor.ID)
		if el.Kind == ElementLabel && !seen[el.Label] {
			seen[el.Label] = true
			ownLabels[el.Label] = mine
		}
		if mine {
			continue
		}
		el.Actor.Role = ""
		kept = append(kept, el)
	}
	var cut bool
	c.Activity, cut = Bound(kept)
	c.ActivityTruncated = e.ActivityTruncated || cut
	if own != nil {
		c.State.Updated = time.Time{}
		c.State.Labels = slices.DeleteFunc(slices.Clone(e.State.Labels), func(l string) bool { return ownLabels[l] })
	}
	data, err := json.Marshal(c)
	if err != nil {
		// Only a time outside JSON's years 0-9999 fails to encode; such an
		// entity fails validation anyway, and still gets a version that
		// changes with its content.
		data = fmt.Appendf(nil, "%#v", c)
	}
	sum := sha256.Sum256(data)
	return versionPrefix + hex.EncodeToString(sum[:16])
}

// VersionOver is the version of e (ComputeVersion) over all, every
// element read before the activity was bounded, cut saying whether those
// reads were themselves cut (older elements may exist that were not
// read), instead of e's bounded activity.
func VersionOver(e *Entity, all []Element, cut bool, own func(actorID string) bool) string {
	c := *e
	c.Activity, c.ActivityTruncated = all, cut
	return ComputeVersion(&c, own)
}

// Ref identifies an entity across the systems: what an event and an
// entity are compared on.
type Ref struct {
	System string
	Repo   string
	Kind   string
	ID     int64
}

// String renders the ref as system:repo:kind:id.
func (r Ref) String() string {
	return r.System + ":" + r.Repo + ":" + r.Kind + ":" + strconv.FormatInt(r.ID, 10)
}

// Ref returns the entity's identity.
func (e *Entity) Ref() Ref {
	return Ref{System: e.Source.System, Repo: e.Repo, Kind: e.Kind, ID: e.ID}
}

// RefOf returns the identity of the entity an event is about. A work item
// linked to a change proposal (a comment thread on a pull or merge
// request) resolves to that change proposal: the pull request and its
// comment thread are one entity. The system is the entity's, never an
// event-only one: a `manual` or `schedule` event about a Jira issue (its
// key set, as only Jira entities carry keys) is about a Jira entity.
func RefOf(ev *event.Event) Ref {
	r := Ref{System: ev.Source.System, Repo: ev.Repo, Kind: ev.Entity.Kind, ID: ev.Entity.ID}
	if (r.System == event.SystemManual || r.System == event.SystemSchedule) && ev.Entity.Key != "" {
		r.System = SystemJira
	}
	if l := ev.Entity.LinkedChangeProposal; l != nil {
		r.Kind, r.ID = KindChangeProposal, l.ID
	}
	return r
}
