package githubsim

// Assignees, drafts and merges: the rest of an issue's or pull request's
// state that its entity reports, changed through the Go API below (no
// delivery: the entity is read, not the event).

import (
	"fmt"
	"slices"
	"time"
)

// SetAssignees replaces the assignees (logins) of an issue or pull
// request and records an "assigned" issue event per new assignee.
func (s *Server) SetAssignees(repo string, number int, actor string, logins ...string) error {
	return s.editIssue(repo, number, func(st *repoState, is *issue, now time.Time) error {
		for _, l := range logins {
			if !slices.Contains(is.Assignees, l) {
				st.events = append(st.events, &issueEvent{ID: s.newID(), Number: number, Event: "assigned", Actor: actor, CreatedAt: now})
			}
		}
		is.Assignees = slices.Clone(logins)
		return nil
	})
}

// SetDraft marks a pull request a draft (or ready for review).
func (s *Server) SetDraft(repo string, number int, draft bool) error {
	return s.editIssue(repo, number, func(_ *repoState, is *issue, _ time.Time) error {
		if is.Pull == nil {
			return fmt.Errorf("githubsim: %s#%d is not a pull request", repo, number)
		}
		is.Pull.Draft = draft
		return nil
	})
}

// MergePull merges an open pull request: it is closed and merged now,
// with the closed and merged issue events.
func (s *Server) MergePull(repo string, number int, actor string) error {
	return s.editIssue(repo, number, func(st *repoState, is *issue, now time.Time) error {
		if is.Pull == nil || is.State != "open" {
			return fmt.Errorf("githubsim: %s#%d is not an open pull request", repo, number)
		}
		is.State, is.ClosedAt, is.Pull.State, is.Pull.MergedAt = "closed", now, "closed", now
		st.events = append(st.events,
			&issueEvent{ID: s.newID(), Number: number, Event: "merged", Actor: actor, CreatedAt: now},
			&issueEvent{ID: s.newID(), Number: number, Event: "closed", Actor: actor, CreatedAt: now})
		return nil
	})
}

// users renders logins as user objects.
func (v view) users(logins []string) []map[string]any {
	out := make([]map[string]any, 0, len(logins))
	for _, l := range logins {
		out = append(out, v.user(l))
	}
	return out
}

// assignee is the first assignee, or null.
func (v view) assignee(is *issue) any {
	if len(is.Assignees) == 0 {
		return nil
	}
	return v.user(is.Assignees[0])
}
