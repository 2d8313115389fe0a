package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func commentRun(text string) Run {
	ev := &event.Event{Repo: "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-1", URL: "https://acme.atlassian.net/browse/PROJ-1"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: event.CommentOf(text)},
		Actor:      event.Actor{ID: "u", Kind: event.ActorHuman, Role: "write"},
		State:      event.State{Labels: []string{}},
		Source:     event.Source{System: event.SystemJira, RawType: "comment", RawAction: "created"}}
	return Run{Harness: "triage", Role: "triage", Event: ev, Key: "triage:acme/platform:jira:work_item:10042",
		WorkItem: WorkItemOf(ev), PollLock: &PollLock{ID: "id", Driver: "jira-poll", Property: "PROJ-1/fullsend.poll.acme.platform.lock"}}
}

// The poison comment of the issue: it fits the 4096-code-point limit, but
// JSON escaping across three inputs makes more than GitHub accepts. The
// inputs are cut until they fit, and the event says it was truncated.
func TestInputsFitGitHubsLimit(t *testing.T) {
	cases := []struct {
		name      string
		text      string
		truncated bool
	}{
		{"short comment untouched", "/fs-triage check it", false},
		{"4000 control characters", "/fs-triage " + strings.Repeat("\x01", 4000), true},
		{"4096 quotes", "/fs-triage " + strings.Repeat(`"`, 4085), false}, // 2 bytes each escaped: fits
		{"4-byte characters", "/fs-triage " + strings.Repeat("😀", 4085), false},
		{"backslashes and newlines", "/fs-triage " + strings.Repeat("\\\n\t", 1361), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := commentRun(tc.text)
			orig := *r.Event.Transition.Comment
			whole := inputsSize(r.render(r.Event, nil))
			in := r.Inputs()
			if n := inputsSize(in); n > MaxInputsSize {
				t.Fatalf("inputs are %d bytes, over %d", n, MaxInputsSize)
			}
			if *r.Event.Transition.Comment != orig {
				t.Error("the run's own event was changed")
			}
			ev, err := event.Decode([]byte(in[InNormalizedEvent]))
			if err != nil {
				t.Fatalf("normalized_event input is not a valid event: %v", err)
			}
			c := ev.Transition.Comment
			if c.Truncated != tc.truncated {
				t.Fatalf("truncated = %v, want %v (whole inputs %d bytes)", c.Truncated, tc.truncated, whole)
			}
			if c.Command != "/fs-triage" {
				t.Errorf("command %q was cut", c.Command)
			}
			if tc.truncated {
				if c.OriginalLength != utf8.RuneCountInString(tc.text) {
					t.Errorf("original_length %d, want %d", c.OriginalLength, utf8.RuneCountInString(tc.text))
				}
				// as little as needed: one more code point would not fit
				longer := r.Event.Clone()
				longer.Transition.Comment.Shorten(utf8.RuneCountInString(c.Body) + 1)
				if inputsSize(r.render(longer, nil)) <= MaxInputsSize {
					t.Errorf("body cut to %d code points, but one more fits", utf8.RuneCountInString(c.Body))
				}
				var p struct {
					Comment struct{ Body string } `json:"comment"`
				}
				if err := json.Unmarshal([]byte(in[InEventPayload]), &p); err != nil || p.Comment.Body != c.Body {
					t.Error("event_payload does not carry the same shortened body")
				}
			}
		})
	}
}

func TestFitInputsRefusesWhatCannotFit(t *testing.T) {
	r := commentRun("/fs-triage hello")
	if _, err := r.FitInputs(100); !errors.Is(err, ErrInputsTooLarge) {
		t.Errorf("err = %v, want ErrInputsTooLarge", err)
	}
	r.Event.Transition = event.Transition{Kind: event.Opened}
	if _, err := r.FitInputs(100); !errors.Is(err, ErrInputsTooLarge) {
		t.Errorf("no comment: err = %v, want ErrInputsTooLarge", err)
	}
	if in := r.Inputs(); in[InAgent] != "triage" {
		t.Error("Inputs of a run that fits changed")
	}
}

// Labels too many for GitHub's limit (998 labels of 210 characters: 209
// 436 characters of normalized_event) are cut deterministically: the
// comment is kept whole, the longest prefix of the labels that fits is
// kept, and state.labels_truncated says so.
func TestLabelsFitGitHubsLimit(t *testing.T) {
	long := make([]string, 998)
	for i := range long {
		long[i] = fmt.Sprintf("%03d-%s", i, strings.Repeat("x", 206))
	}
	cases := []struct {
		name        string
		comment     string
		labels      []string
		wantComment bool // the comment is kept whole
		wantCut     bool // labels were dropped
	}{
		{"998 long labels", "/fs-triage look", long, true, true},
		{"a few labels", "/fs-triage look", []string{"bug", "ready"}, true, false},
		{"a long comment with many long labels", "/fs-triage " + strings.Repeat("\x01", 4000), long, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := commentRun(tc.comment)
			r.Event.State.Labels = slices.Clone(tc.labels)
			orig := r.Event.Clone()
			in, err := r.FitInputs(MaxInputsSize)
			if err != nil {
				t.Fatal(err)
			}
			if n := inputsSize(in); n > MaxInputsSize {
				t.Fatalf("inputs are %d bytes, over %d", n, MaxInputsSize)
			}
			if !reflect.DeepEqual(r.Event, orig) {
				t.Error("the run's own event was changed")
			}
			ev, err := event.Decode([]byte(in[InNormalizedEvent]))
			if err != nil {
				t.Fatalf("normalized_event input is not a valid event: %v", err)
			}
			if whole := !ev.Transition.Comment.Truncated; whole != tc.wantComment {
				t.Errorf("comment kept whole %v, want %v", whole, tc.wantComment)
			}
			if ev.State.LabelsTruncated != tc.wantCut || (len(ev.State.Labels) < len(tc.labels)) != tc.wantCut {
				t.Fatalf("labels %d of %d, truncated %v; want truncated %v", len(ev.State.Labels), len(tc.labels), ev.State.LabelsTruncated, tc.wantCut)
			}
			t.Logf("%d of %d labels kept, inputs %d bytes (whole: %d)", len(ev.State.Labels), len(tc.labels), inputsSize(in), inputsSize(r.render(r.Event, nil)))
			if !slices.Equal(ev.State.Labels, tc.labels[:len(ev.State.Labels)]) {
				t.Error("kept labels are not a prefix of the labels")
			}
			if tc.wantCut { // as few dropped as needed: one more label would not fit
				more := ev.Clone()
				more.State.Labels = tc.labels[:len(ev.State.Labels)+1]
				if inputsSize(r.render(more, nil)) <= MaxInputsSize {
					t.Errorf("%d labels kept, but one more fits", len(ev.State.Labels))
				}
			}
			again, _ := r.FitInputs(MaxInputsSize)
			if !maps.Equal(in, again) {
				t.Error("fitting the same run twice gave different inputs")
			}
		})
	}
}
