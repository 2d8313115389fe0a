package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func TestPayload(t *testing.T) {
	wi := &event.Event{Entity: event.Entity{Kind: event.KindWorkItem, ID: 7, URL: "https://gh/i/7"}}
	cp := &event.Event{Entity: event.Entity{Kind: event.KindChangeProposal, ID: 9, URL: "https://gh/p/9"}}
	prc := &event.Event{Entity: event.Entity{Kind: event.KindWorkItem, ID: 9, URL: "https://gh/i/9",
		LinkedChangeProposal: &event.LinkedChangeProposal{ID: 9, URL: "https://gh/p/9"}},
		Transition: event.Transition{Comment: &event.Comment{Body: "hi \"there\""}}}
	cases := []struct {
		ev   *event.Event
		want string
	}{
		{wi, `{"issue":{"number":7,"html_url":"https://gh/i/7"}}`},
		{cp, `{"pull_request":{"number":9,"html_url":"https://gh/p/9"}}`},
		{prc, `{"issue":{"number":9,"html_url":"https://gh/i/9"},"pull_request":{"number":9,"html_url":"https://gh/p/9"},"comment":{"body":"hi \"there\""}}`},
	}
	for _, c := range cases {
		if got := Payload(c.ev); got != c.want {
			t.Errorf("Payload = %s\nwant      %s", got, c.want)
		}
	}
}

func TestInputsAndEnv(t *testing.T) {
	ev := &event.Event{Repo: "acme/p", Entity: event.Entity{Kind: event.KindWorkItem, ID: 1, URL: "u", Key: "P-1"},
		Transition: event.Transition{Kind: event.Opened}, Source: event.Source{System: "jira"}, State: event.State{Labels: []string{}}}
	r := Run{Harness: "h", Role: "r", Event: ev, Key: "h:acme/p:jira:work_item:1", WorkItem: WorkItemOf(ev),
		PollLock: &PollLock{ID: "id1", Driver: "jira-poll", Property: "P-1/fullsend.poll.acme.p.lock"}}
	in := r.Inputs()
	// An event-only run sends the nine inputs; normalized_entity is absent.
	if len(in) != 9 || len(Names) != 10 || Names[9] != InNormalizedEntity {
		t.Fatalf("inputs = %d", len(in))
	}
	for _, n := range Names {
		if _, ok := in[n]; !ok && n != InNormalizedEntity {
			t.Errorf("missing input %s", n)
		}
	}
	var lock PollLock
	if err := json.Unmarshal([]byte(in[InPollLock]), &lock); err != nil || lock != *r.PollLock {
		t.Fatalf("poll_lock = %s (%v)", in[InPollLock], err)
	}
	if in[InEventType] != "opened" || in[InSourceRepo] != "acme/p" || in[InAgent] != "h" || in[InRole] != "r" {
		t.Fatalf("inputs = %v", in)
	}
	if EnvVar(InNormalizedEvent) != "FULLSEND_NORMALIZED_EVENT" || EnvVar(InPollLock) != "FULLSEND_POLL_LOCK" {
		t.Fatal("EnvVar")
	}
}

func TestInputsDoNotEscapeHTML(t *testing.T) {
	ev := &event.Event{Repo: "acme/p", Entity: event.Entity{Kind: event.KindWorkItem, ID: 1, URL: "https://x/1?a=1&b=2"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: "/fs-x <b>&</b>"}},
		State:      event.State{Labels: []string{}}}
	in := Run{Harness: "h", Event: ev}.Inputs()
	for _, name := range []string{InNormalizedEvent, InEventPayload, InWorkItem} {
		if strings.Contains(in[name], `\u003c`) || strings.Contains(in[name], `\u0026`) {
			t.Errorf("%s escapes HTML: %s", name, in[name])
		}
		if strings.HasSuffix(in[name], "\n") {
			t.Errorf("%s ends with a newline", name)
		}
	}
	if !strings.Contains(in[InEventPayload], `"body":"/fs-x <b>&</b>"`) {
		t.Errorf("payload = %s", in[InEventPayload])
	}
	var back event.Event
	if err := json.Unmarshal([]byte(in[InNormalizedEvent]), &back); err != nil || back.Transition.Comment.Body != "/fs-x <b>&</b>" {
		t.Fatalf("round trip: %v %+v", err, back.Transition.Comment)
	}
}
