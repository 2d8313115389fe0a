// Package scope computes the serialization scope of an event: the canonical
// subject (system, kind, id) and the scope key
// `{harness}:{repo}:{system}:{kind}:{id}` (docs/scheduling.md).
//
// Two events share a scope exactly when they concern the same subject in the
// same target repository for the same harness. A work item that is linked to
// a change proposal (a comment on a pull request) is the change proposal.
// The subject system is the entity's system, never an event-only field:
// `jira` when the entity carries a Jira key, otherwise the forge hosting the
// repository.
package scope

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// Subject is the canonical identity of what an event is about.
type Subject struct {
	System string // jira | github | gitlab
	Kind   string // work_item | change_proposal | conversation
	ID     int64
}

// String renders the subject as `system:kind:id`.
func (s Subject) String() string {
	return s.System + ":" + s.Kind + ":" + strconv.FormatInt(s.ID, 10)
}

// SubjectOf returns the canonical subject of ev. forge is the forge hosting
// ev.Repo (config `forge`); empty means github.
func SubjectOf(ev *event.Event, forge string) Subject {
	if forge == "" {
		forge = event.SystemGitHub
	}
	sys := forge
	if ev.Entity.Key != "" {
		sys = event.SystemJira
	}
	kind, id := ev.Entity.Kind, ev.Entity.ID
	if kind == event.KindWorkItem && ev.Entity.LinkedChangeProposal != nil {
		kind, id = event.KindChangeProposal, ev.Entity.LinkedChangeProposal.ID
	}
	return Subject{System: sys, Kind: kind, ID: id}
}

// Key is the canonical scope key text.
type Key string

// KeyOf builds the scope key of harness for ev.
func KeyOf(harness string, ev *event.Event, forge string) Key {
	return Make(harness, ev.Repo, SubjectOf(ev, forge))
}

// Make builds a key from its parts.
func Make(harness, repo string, s Subject) Key {
	return Key(harness + ":" + repo + ":" + s.String())
}

// Parse splits a key into its parts. Repositories may contain '/', never ':'.
func Parse(k Key) (harness, repo string, s Subject, err error) {
	parts := strings.Split(string(k), ":")
	if len(parts) != 5 {
		return "", "", Subject{}, fmt.Errorf("scope key %q: want harness:repo:system:kind:id", string(k))
	}
	id, err := strconv.ParseInt(parts[4], 10, 64)
	if err != nil || id < 1 {
		return "", "", Subject{}, fmt.Errorf("scope key %q: id %q is not a positive integer", string(k), parts[4])
	}
	return parts[0], parts[1], Subject{System: parts[2], Kind: parts[3], ID: id}, nil
}

// ResourceName makes k safe for use as a CI resource or concurrency group
// name: every character outside [A-Za-z0-9_.-] becomes '-', and ':' becomes
// '_' so that distinct keys stay distinct in practice. The result is at most
// 255 bytes; longer keys keep a prefix and a hash suffix.
func ResourceName(k Key) string {
	var b strings.Builder
	for _, r := range string(k) {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			b.WriteRune(r)
		case r == ':':
			b.WriteByte('_')
		case r == '/':
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > 255 {
		s = s[:238] + "-" + strconv.FormatUint(fnv64(string(k)), 16)
	}
	return s
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
