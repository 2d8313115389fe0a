package runner

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

func jiraEvent() *event.Event {
	return &event.Event{Repo: "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-123", URL: "https://acme.atlassian.net/browse/PROJ-123"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: "/fs-triage go", Command: "/fs-triage", Instruction: "go"}},
		Actor:      event.Actor{ID: "557058:abc", Kind: event.ActorHuman, Role: "write"},
		State:      event.State{Labels: []string{"bug"}},
		Source:     event.Source{System: event.SystemJira, RawType: "comment", RawAction: "created"}}
}

func githubIssueEvent() *event.Event {
	return &event.Event{Repo: "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 7, URL: "https://github.com/acme/platform/issues/7"},
		Transition: event.Transition{Kind: event.Opened},
		Actor:      event.Actor{ID: "1", Kind: event.ActorHuman, Role: "write"},
		State:      event.State{Labels: []string{}},
		Source:     event.Source{System: event.SystemGitHub, RawType: "issues", RawAction: "opened"}}
}

func TestAgentEnv(t *testing.T) {
	parent := map[string]string{
		"PATH": "/usr/bin", "HOME": "/home/ci", "LANG": "C.UTF-8", "TERM": "",
		"GITHUB_TOKEN": "ghs_secret", "GH_TOKEN": "gho_secret", "GITLAB_TOKEN": "glpat", "JIRA_TOKEN": "jt",
		"ANTHROPIC_API_KEY": "sk", "RANDOM_VAR": "x", "ISSUE_NUMBER": "inherited", "FULLSEND_HARNESS": "spoof",
	}
	lock := &plan.PollLock{ID: "u1", Driver: "jira-poll", Property: "PROJ-123/fullsend.poll.acme.platform.lock"}
	pr := githubIssueEvent()
	pr.Entity.LinkedChangeProposal = &event.LinkedChangeProposal{ID: 8, URL: "https://github.com/acme/platform/pull/8"}
	glIssue := githubIssueEvent()
	glIssue.Source.System = event.SystemGitLab
	glIssue.Entity.URL = "https://gitlab.example/acme/platform/-/issues/7"
	tests := []struct {
		name  string
		ctx   AgentContext
		allow []string
		want  []string
	}{
		{name: "jira with lock and allow-list",
			ctx:   AgentContext{Harness: "triage", Event: jiraEvent(), Key: "triage:acme/platform:jira:work_item:10042", PollLock: lock, EventFile: "/tmp/x/event.json"},
			allow: []string{"ANTHROPIC_API_KEY", "UNSET_VAR", "BAD=NAME", "FULLSEND_HARNESS"},
			want: []string{"ANTHROPIC_API_KEY=sk",
				"FULLSEND_EVENT_FILE=/tmp/x/event.json", "FULLSEND_HARNESS=triage",
				"FULLSEND_POLL_LOCK_DRIVER=jira-poll", "FULLSEND_POLL_LOCK_ID=u1",
				"FULLSEND_POLL_LOCK_PROPERTY=PROJ-123/fullsend.poll.acme.platform.lock",
				"FULLSEND_SERIALIZATION_KEY=triage:acme/platform:jira:work_item:10042",
				"FULLSEND_WORK_ITEM_KEY=PROJ-123", "FULLSEND_WORK_ITEM_SOURCE=jira",
				"FULLSEND_WORK_ITEM_URL=https://acme.atlassian.net/browse/PROJ-123",
				"HOME=/home/ci", "ISSUE_NUMBER=", "LANG=C.UTF-8", "PATH=/usr/bin"}},
		{name: "github issue without lock",
			ctx: AgentContext{Harness: "triage", Event: githubIssueEvent(), Key: "k", EventFile: "/e"},
			want: []string{"FULLSEND_EVENT_FILE=/e", "FULLSEND_HARNESS=triage",
				"FULLSEND_POLL_LOCK_DRIVER=", "FULLSEND_POLL_LOCK_ID=", "FULLSEND_POLL_LOCK_PROPERTY=",
				"FULLSEND_SERIALIZATION_KEY=k", "FULLSEND_WORK_ITEM_KEY=", "FULLSEND_WORK_ITEM_SOURCE=github",
				"FULLSEND_WORK_ITEM_URL=https://github.com/acme/platform/issues/7",
				"GITHUB_ISSUE_URL=https://github.com/acme/platform/issues/7", "HOME=/home/ci", "ISSUE_NUMBER=7",
				"LANG=C.UTF-8", "PATH=/usr/bin"}},
		{name: "comment on a pull request is not an issue",
			ctx: AgentContext{Harness: "h", Event: pr, Key: "k", EventFile: "/e"},
			want: []string{"FULLSEND_EVENT_FILE=/e", "FULLSEND_HARNESS=h",
				"FULLSEND_POLL_LOCK_DRIVER=", "FULLSEND_POLL_LOCK_ID=", "FULLSEND_POLL_LOCK_PROPERTY=",
				"FULLSEND_SERIALIZATION_KEY=k", "FULLSEND_WORK_ITEM_KEY=", "FULLSEND_WORK_ITEM_SOURCE=github",
				"FULLSEND_WORK_ITEM_URL=https://github.com/acme/platform/issues/7",
				"HOME=/home/ci", "LANG=C.UTF-8", "PATH=/usr/bin"}},
		{name: "gitlab issue",
			ctx: AgentContext{Harness: "h", Event: glIssue, Forge: "gitlab", Key: "k", EventFile: "/e"},
			want: []string{"FULLSEND_EVENT_FILE=/e", "FULLSEND_HARNESS=h",
				"FULLSEND_POLL_LOCK_DRIVER=", "FULLSEND_POLL_LOCK_ID=", "FULLSEND_POLL_LOCK_PROPERTY=",
				"FULLSEND_SERIALIZATION_KEY=k", "FULLSEND_WORK_ITEM_KEY=", "FULLSEND_WORK_ITEM_SOURCE=gitlab",
				"FULLSEND_WORK_ITEM_URL=https://gitlab.example/acme/platform/-/issues/7",
				"HOME=/home/ci", "ISSUE_NUMBER=7", "LANG=C.UTF-8", "PATH=/usr/bin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AgentEnv(tc.ctx, tc.allow, envOf(parent))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("env:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
