package harness

import (
	"github.com/fullsend-dev/fullsend/internal/strictyaml/strictyamltest"
	"testing"
)

func TestParseReport(t *testing.T) {
	cases := []struct {
		name, src string
		want      Report
	}{
		{"defaults", "role: r\n", Report{Acknowledge: true, Jira: "none", Denied: "none", Unhonoured: "comment"}},
		{"all set", "role: r\nreport: {acknowledge: false, jira: comment, denied: reaction, unhonoured: none}\n",
			Report{Acknowledge: false, Jira: "comment", Denied: "reaction", Unhonoured: "none"}},
		{"one set", "role: r\nreport:\n  jira: comment\n", Report{Acknowledge: true, Jira: "comment", Denied: "none", Unhonoured: "comment"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, probs := ParseFile("h.yaml", "agent", []byte(tc.src))
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			if h.Report != tc.want {
				t.Errorf("got %+v, want %+v", h.Report, tc.want)
			}
		})
	}
}

func TestReportProblems(t *testing.T) {
	cases := []struct {
		name, src string
		want      []strictyamltest.Want
	}{
		{"not a mapping", "role: r\nreport: yes\n", []strictyamltest.Want{{"h.yaml", 2, 9, "report: want a mapping, got a string"}}},
		{"bad bool", "role: r\nreport:\n  acknowledge: sometimes\n", []strictyamltest.Want{{"h.yaml", 3, 16, "report.acknowledge: want true or false, got a string"}}},
		{"bad jira", "role: r\nreport:\n  jira: reaction\n", []strictyamltest.Want{{"h.yaml", 3, 9, `report.jira: "reaction" is not one of none, comment`}}},
		{"bad denied", "role: r\nreport:\n  denied: comment\n", []strictyamltest.Want{{"h.yaml", 3, 11, `report.denied: "comment" is not one of none, reaction`}}},
		{"bad unhonoured", "role: r\nreport:\n  unhonoured: loud\n", []strictyamltest.Want{{"h.yaml", 3, 15, `report.unhonoured: "loud" is not one of comment, none`}}},
		{"unknown key", "role: r\nreport:\n  status: comment\n", []strictyamltest.Want{{"h.yaml", 3, 3, `report: unknown key "status" (allowed: acknowledge, denied, jira, unhonoured)`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := ParseFile("h.yaml", "agent", []byte(tc.src))
			strictyamltest.Check(t, probs, tc.want)
		})
	}
}
