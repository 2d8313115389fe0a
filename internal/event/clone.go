package event

import "slices"

// Clone returns a deep copy of e: changing the copy's labels or optional
// objects never changes e. Clone of nil is nil.
func (e *Event) Clone() *Event {
	if e == nil {
		return nil
	}
	c := *e
	c.Entity.LinkedChangeProposal = clonePtr(e.Entity.LinkedChangeProposal)
	c.Transition.Label = clonePtr(e.Transition.Label)
	c.Transition.Comment = clonePtr(e.Transition.Comment)
	c.Transition.Review = clonePtr(e.Transition.Review)
	if e.State.Labels != nil {
		c.State.Labels = slices.Clone(e.State.Labels)
	}
	c.State.ChangeProposal = clonePtr(e.State.ChangeProposal)
	c.State.Conversation = clonePtr(e.State.Conversation)
	return &c
}

// clonePtr copies the value p points to; the pointee types hold only
// strings, numbers and booleans, so a shallow copy is deep.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
