package jirapoll

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/event"
)

func TestRawActionIsBounded(t *testing.T) {
	custom := func(n int) []string {
		var fs []string
		for i := range n {
			fs = append(fs, fmt.Sprintf("customfield_%05d", 10000+i))
		}
		return fs
	}
	long := strings.Repeat("é", 200)
	cases := []struct {
		name   string
		fields []string
		want   string // "" checks only the bound and validity
	}{
		{"one field", []string{"customfield_10010"}, "customfield_10010"},
		{"two fields joined", []string{"summary", "description"}, "summary,description"},
		{"eight custom fields", custom(8), ""},
		{"forty custom fields", custom(40), ""},
		{"one id over 128", []string{long}, strings.Repeat("é", 128)},
		{"long id then more", []string{long, "x"}, strings.Repeat("é", 125) + ",+1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := rawAction(tc.fields)
			if tc.want != "" && got != tc.want {
				t.Errorf("rawAction = %q, want %q", got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > maxRawAction {
				t.Errorf("rawAction has %d code points, over %d: %q", n, maxRawAction, got)
			}
			if len(tc.fields) > 1 && !strings.HasPrefix(got, tc.fields[0]) && tc.fields[0] != long {
				t.Errorf("rawAction %q does not start with the first field", got)
			}
			ev := &event.Event{Repo: "acme/platform",
				Entity:     event.Entity{Kind: event.KindWorkItem, ID: 1, Key: "PROJ-1", URL: "https://jira.example/browse/PROJ-1"},
				Transition: event.Transition{Kind: event.Updated},
				Actor:      event.Actor{ID: "u", Kind: event.ActorHuman, Role: "write"},
				State:      event.State{Labels: []string{}},
				Source:     event.Source{System: event.SystemJira, RawType: RawChangelog, RawAction: got}}
			if err := ev.Validate(); err != nil {
				t.Errorf("event with raw_action %q is invalid: %v", got, err)
			}
		})
	}
	if got := rawAction(custom(8)); !strings.HasSuffix(got, ",+1") || !strings.HasPrefix(got, "customfield_10000,customfield_10001") {
		t.Errorf("eight fields: %q, want the first seven and ,+1", got)
	}
}
