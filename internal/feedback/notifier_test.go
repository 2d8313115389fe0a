package feedback

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/redact"
)

// fakeWriter records the writes; fail makes them fail.
type fakeWriter struct {
	mu     sync.Mutex
	writes []string // "react <target> <content>" or "comment <target> <marker>"
	texts  []string
	fail   error
}

func (w *fakeWriter) React(_ context.Context, t Target, content string) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, "react "+t.String()+" "+content)
	return false, w.fail
}

func (w *fakeWriter) Comment(_ context.Context, t Target, text, marker string) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, "comment "+t.String()+" "+marker)
	w.texts = append(w.texts, text)
	return false, w.fail
}

func reg(reports map[string]harness.Report) *harness.Registry {
	var hs []*harness.Harness
	for _, name := range []string{"triage", "code"} {
		if r, ok := reports[name]; ok {
			hs = append(hs, &harness.Harness{Name: name, Enabled: true, Report: r})
		}
	}
	return harness.NewRegistry(hs...)
}

// wantWrites runs do on a notifier for system with the harnesses' reports
// and checks the writes it made, in order.
func wantWrites(t *testing.T, system string, reports map[string]harness.Report, want []string, do func(*Notifier)) {
	t.Helper()
	w := &fakeWriter{}
	do(New(Options{Writer: w, System: system, Harnesses: reg(reports)}))
	if strings.Join(w.writes, "\n") != strings.Join(want, "\n") {
		t.Errorf("writes %q, want %q", w.writes, want)
	}
}

func ghComment(body string, id string) *event.Event {
	return &event.Event{Repo: "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 7, URL: "https://github.com/acme/app/issues/7"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: withID(event.CommentOf(body), id)},
		Actor:      event.Actor{ID: "alice", Kind: event.ActorHuman, Role: event.RoleWrite},
		Source:     event.Source{System: event.SystemGitHub, RawType: "issue_comment"}}
}

func withID(c *event.Comment, id string) *event.Comment { c.ID = id; return c }

func jiraComment(id string) *event.Event {
	ev := ghComment("/fs-triage", id)
	ev.Entity = event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-1", URL: "https://acme.atlassian.net/browse/PROJ-1"}
	ev.Source.System = event.SystemJira
	return ev
}

func jiraLabel() *event.Event {
	ev := jiraComment("")
	ev.Transition = event.Transition{Kind: event.LabelChanged, Label: &event.Label{Name: "triage", Action: "added"}}
	return ev
}

func TestAcknowledge(t *testing.T) {
	def := harness.DefaultReport()
	off := def
	off.Acknowledge = false
	jiraOn := def
	jiraOn.Jira = harness.ReportComment
	label := ghComment("x", "")
	label.Transition = event.Transition{Kind: event.LabelChanged, Label: &event.Label{Name: "triage", Action: "added"}}
	removed := ghComment("x", "")
	removed.Transition = event.Transition{Kind: event.LabelChanged, Label: &event.Label{Name: "triage", Action: "removed"}}
	review := ghComment("x", "")
	review.Entity = event.Entity{Kind: event.KindChangeProposal, ID: 8, URL: "https://github.com/acme/app/pull/8"}
	review.Transition = event.Transition{Kind: event.ReviewSubmitted, Review: &event.Review{State: "approved"}}
	dismissed := ghComment("x", "")
	dismissed.Entity = review.Entity
	dismissed.Transition = event.Transition{Kind: event.ReviewSubmitted, Review: &event.Review{State: "dismissed"}}
	mr := ghComment("/fs-review", "55")
	mr.Source.System, mr.Entity.URL = event.SystemGitLab, "https://gitlab.com/g/sub/p/-/merge_requests/3"
	mr.Entity.ID, mr.Entity.LinkedChangeProposal = 3, &event.LinkedChangeProposal{ID: 3, URL: mr.Entity.URL}
	cases := []struct {
		name    string
		reports map[string]harness.Report
		runs    []Started
		want    []string
	}{
		{"one reaction for two harnesses on one comment", map[string]harness.Report{"triage": def, "code": def},
			[]Started{{Harness: "triage", Event: ghComment("/fs-triage", "901")}, {Harness: "code", Event: ghComment("/fs-triage", "901")}},
			[]string{"react github:acme/app#7/comment/901 eyes"}},
		{"acknowledge false", map[string]harness.Report{"triage": off},
			[]Started{{Harness: "triage", Event: ghComment("/fs-triage", "901")}}, nil},
		{"a comment without a command", map[string]harness.Report{"triage": def},
			[]Started{{Harness: "triage", Event: ghComment("please look", "901")}}, nil},
		{"a label added: on the item", map[string]harness.Report{"triage": def},
			[]Started{{Harness: "triage", Event: label}}, []string{"react github:acme/app#7 eyes"}},
		{"a label removed: nothing", map[string]harness.Report{"triage": def},
			[]Started{{Harness: "triage", Event: removed}}, nil},
		{"a review: on the pull request", map[string]harness.Report{"triage": def},
			[]Started{{Harness: "triage", Event: review}}, []string{"react github:acme/app#8 eyes"}},
		{"a dismissed review: nothing", map[string]harness.Report{"triage": def},
			[]Started{{Harness: "triage", Event: dismissed}}, nil},
		{"a GitLab note on a merge request", map[string]harness.Report{"triage": def},
			[]Started{{Harness: "triage", Event: mr}}, []string{"react gitlab:g/sub/p!3/comment/55 eyes"}},
		{"jira by default: nothing", map[string]harness.Report{"triage": def},
			[]Started{{Harness: "triage", Event: jiraComment("10001")}}, nil},
		{"jira comment", map[string]harness.Report{"triage": jiraOn},
			[]Started{{Harness: "triage", Event: jiraComment("10001")}}, []string{"comment jira:PROJ-1/comment/10001 [fullsend:acknowledge comment/10001]"}},
		{"jira label added: nothing to reply to", map[string]harness.Report{"triage": jiraOn},
			[]Started{{Harness: "triage", Event: jiraLabel()}}, nil},
		{"an unknown harness", map[string]harness.Report{"triage": def},
			[]Started{{Harness: "gone", Event: ghComment("/fs-triage", "901")}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &fakeWriter{}
			n := New(Options{Writer: w, System: "github", Harnesses: reg(tc.reports)})
			n.Acknowledge(context.Background(), tc.runs)
			if strings.Join(w.writes, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("writes\n%s\nwant\n%s", strings.Join(w.writes, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestRefuse(t *testing.T) {
	def := harness.DefaultReport()
	on := def
	on.Denied = harness.ReportReaction
	bot := ghComment("/fs-triage", "901")
	bot.Actor.Kind = event.ActorBot
	cases := []struct {
		name    string
		reports map[string]harness.Report
		ev      *event.Event
		want    []string
	}{
		{"denied: reaction", map[string]harness.Report{"triage": def, "code": on}, ghComment("/fs-triage", "901"),
			[]string{"react github:acme/app#7/comment/901 confused"}},
		{"default: nothing", map[string]harness.Report{"triage": def}, ghComment("/fs-triage", "901"), nil},
		{"not a command", map[string]harness.Report{"triage": on}, ghComment("hello", "901"), nil},
		{"a bot", map[string]harness.Report{"triage": on}, bot, nil},
		{"jira has no reactions", map[string]harness.Report{"triage": on}, jiraComment("10001"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantWrites(t, "github", tc.reports, tc.want, func(n *Notifier) { n.Refuse(context.Background(), tc.ev) })
		})
	}
}

func TestUnhonoured(t *testing.T) {
	def := harness.DefaultReport()
	off := def
	off.Unhonoured = harness.ReportNone
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		reports map[string]harness.Report
		no      Notice
		want    []string
	}{
		{"a quarantined jira change", map[string]harness.Report{"triage": def},
			Notice{Item: "PROJ-1", Harness: "triage", Change: "comment/10001", At: at, Reason: "inputs too large"},
			[]string{"comment jira:PROJ-1 [fullsend:unhonoured comment/10001]"}},
		{"unhonoured none", map[string]harness.Report{"triage": off},
			Notice{Item: "PROJ-1", Harness: "triage", Change: "comment/10001", Reason: "x"}, nil},
		{"an invalid event, one harness wants it", map[string]harness.Report{"triage": off, "code": def},
			Notice{Item: "PROJ-1", Change: "comment/10001", Reason: "invalid"},
			[]string{"comment jira:PROJ-1 [fullsend:unhonoured comment/10001]"}},
		{"an invalid event, none wants it", map[string]harness.Report{"triage": off},
			Notice{Item: "PROJ-1", Change: "comment/10001", Reason: "invalid"}, nil},
		{"on the github item of its event", map[string]harness.Report{"triage": def},
			Notice{Item: "x", Harness: "triage", Change: "comment/901", Reason: "r", Event: ghComment("/fs-triage", "901")},
			[]string{"comment github:acme/app#7 [fullsend:unhonoured comment/901]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantWrites(t, "jira", tc.reports, tc.want, func(n *Notifier) { n.Unhonoured(context.Background(), tc.no) })
		})
	}
}

func TestUnhonouredTextRedactsAndShortens(t *testing.T) {
	const secret = "s3cr3t-token-value-xyz"
	w := &fakeWriter{}
	n := New(Options{Writer: w, System: "jira", Harnesses: reg(map[string]harness.Report{"triage": harness.DefaultReport()})})
	redact.Add(secret)
	n.Unhonoured(context.Background(), Notice{Item: "PROJ-1", Harness: "triage", Change: "comment/1",
		Reason: "refused with " + secret + " " + strings.Repeat("very long ", 100)})
	if len(w.texts) != 1 {
		t.Fatalf("%d comments", len(w.texts))
	}
	text := w.texts[0]
	if strings.Contains(text, secret) || !strings.Contains(text, "…") || !strings.Contains(text, "post the command again") ||
		!strings.HasSuffix(text, "\n[fullsend:unhonoured comment/1]") {
		t.Errorf("comment text %q", text)
	}
}

// TestFailuresCounted: a failed write is counted as failed and never
// returned; the series carries platform, kind and result.
func TestFailuresCounted(t *testing.T) {
	r := prometheus.NewRegistry()
	m := NewMetrics(r)
	if again := NewMetrics(r); again.c != m.c {
		t.Error("a second registration made a second counter")
	}
	w := &fakeWriter{fail: errors.New("HTTP 500")}
	n := New(Options{Writer: w, System: "github", Metrics: m, Harnesses: reg(map[string]harness.Report{"triage": harness.DefaultReport()})})
	n.Acknowledge(context.Background(), []Started{{Harness: "triage", Event: ghComment("/fs-triage", "901")}})
	if got := m.Value("github", KindAcknowledge, ResultFailed); got != 1 {
		t.Errorf("failed count %v, want 1", got)
	}
	w.fail = nil
	n.Acknowledge(context.Background(), []Started{{Harness: "triage", Event: ghComment("/fs-triage", "902")}})
	if got := m.Value("github", KindAcknowledge, ResultCreated); got != 1 {
		t.Errorf("created count %v, want 1", got)
	}
	var nilN *Notifier
	nilN.Acknowledge(context.Background(), []Started{{Harness: "triage", Event: ghComment("/fs-triage", "901")}})
	nilN.Unhonoured(context.Background(), Notice{})
	nilN.Refuse(context.Background(), ghComment("/fs-triage", "901"))
}
