package trigger

import "github.com/fullsend-dev/fullsend/internal/event"

// Sample events shared by the tests and benchmarks.

func commentEvent() *event.Event {
	return &event.Event{
		Repo:   "acme/platform",
		Entity: event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-123", URL: "https://acme.atlassian.net/browse/PROJ-123"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{
			Command: "/fs-triage", Body: "/fs-triage check acceptance criteria", Instruction: "check acceptance criteria"}},
		Actor:  event.Actor{ID: "557058:abc123", Kind: event.ActorHuman, Role: "write"},
		State:  event.State{Labels: []string{"needs-info", "bug"}},
		Source: event.Source{System: event.SystemJira, RawType: "comment", RawAction: "created"},
	}
}

func labelEvent() *event.Event {
	return &event.Event{
		Repo:       "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 7, URL: "https://github.com/acme/platform/issues/7"},
		Transition: event.Transition{Kind: event.LabelChanged, Label: &event.Label{Name: "needs-triage", Action: "added"}},
		Actor:      event.Actor{ID: "42", Kind: event.ActorHuman, Role: "triage", IsEntityAuthor: true},
		State:      event.State{Labels: []string{"needs-triage"}},
		Source:     event.Source{System: event.SystemGitHub, RawType: "issues", RawAction: "labeled"},
	}
}

func prEvent() *event.Event {
	return &event.Event{
		Repo:       "acme/platform",
		Entity:     event.Entity{Kind: event.KindChangeProposal, ID: 12, URL: "https://github.com/acme/platform/pull/12"},
		Transition: event.Transition{Kind: event.Opened},
		Actor:      event.Actor{ID: "43", Kind: event.ActorHuman, Role: "external", IsEntityAuthor: true},
		State: event.State{Labels: []string{}, ChangeProposal: &event.ChangeProposal{
			ID: 12, HeadRepo: "fork/platform", BaseRepo: "acme/platform", HeadRef: "fix", BaseRef: "main", AuthorID: "43", IsFork: true}},
		Source: event.Source{System: event.SystemGitHub, RawType: "pull_request", RawAction: "opened"},
	}
}
