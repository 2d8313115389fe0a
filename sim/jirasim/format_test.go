package jirasim

import (
	"testing"
	"time"
)

// The expected documents and timestamps are written out literally from the
// Atlassian documentation, so they check the emulator's encoders against
// the vendor's format rather than against another encoder.
func TestTextADF(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"", `{"type":"doc","version":1,"content":[]}`},
		{"Hello world", `{"type":"doc","version":1,"content":[{"type":"paragraph","content":[{"type":"text","text":"Hello world"}]}]}`},
		{"/fs-triage go\n\nsecond \"line\"", `{"type":"doc","version":1,"content":[` +
			`{"type":"paragraph","content":[{"type":"text","text":"/fs-triage go"}]},` +
			`{"type":"paragraph","content":[{"type":"text","text":"second \"line\""}]}]}`},
	}
	for _, tt := range tests {
		if got := string(textADF(tt.text)); got != tt.want {
			t.Errorf("textADF(%q) =\n%s\nwant\n%s", tt.text, got, tt.want)
		}
	}
}

func TestTimestampLayouts(t *testing.T) {
	at := time.Date(2024, 1, 17, 12, 34, 56, 789_000_000, time.FixedZone("CET", 3600))
	tests := []struct {
		compact bool
		want    string
	}{
		{true, "2024-01-17T11:34:56.789+0000"},
		{false, "2024-01-17T11:34:56.789+00:00"},
	}
	for _, tt := range tests {
		s := &Server{opts: Options{CompactOffsets: tt.compact}}
		if got := s.jtime(at); got != tt.want {
			t.Errorf("jtime(compact=%v) = %s, want %s", tt.compact, got, tt.want)
		}
	}
}

func TestKeyPatterns(t *testing.T) {
	tests := []struct {
		key            string
		project, issue bool
	}{
		{"PROJ", true, false},
		{"P", true, false},
		{"proj_2", true, false},
		{"2PROJ", false, false},
		{"PROJ-1", false, true},
		{"PROJ-0", false, true},
		{"P-1", false, true},
		{"PROJ-01", false, false},
		{"proj-12", false, true},
		{"-12", false, false},
	}
	for _, tt := range tests {
		if got := validProjectKey(tt.key); got != tt.project {
			t.Errorf("validProjectKey(%q) = %v", tt.key, got)
		}
		if got := validIssueKey(tt.key); got != tt.issue {
			t.Errorf("validIssueKey(%q) = %v", tt.key, got)
		}
	}
}
