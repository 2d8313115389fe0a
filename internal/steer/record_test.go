package steer

import (
	"reflect"
	"testing"
	"time"
)

func TestParseRunMarker(t *testing.T) {
	for _, tc := range []struct {
		line, run string
		ok        bool
	}{
		{RunMarker("gha-dispatch/9000"), "gha-dispatch/9000", true},
		{"  " + RunMarker("gitlab-pipeline/12") + " ", "gitlab-pipeline/12", true},
		{"[fullsend:steered-into gha-dispatch]", "", false},
		{"[fullsend:steered-into /9000]", "", false},
		{"[fullsend:steered-into gha-dispatch/]", "", false},
		{"[fullsend:steered-into a/b c]", "", false},
		{"[fullsend:steered-into a/b", "", false},
		{Marker("triage", 1), "", false},
	} {
		run, ok := ParseRunMarker(tc.line)
		if run != tc.run || ok != tc.ok {
			t.Errorf("ParseRunMarker(%q) = %q %v, want %q %v", tc.line, run, ok, tc.run, tc.ok)
		}
	}
}

// Steered lists what the tool's own records say, each with the run its
// record names and when it was written; anyone else's marker, and a
// record without a run line (written before records named runs), count
// as they are.
func TestSteered(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	rs := []Reply{
		{Author: "mallory", Body: ReplyText("triage", 7, "gha-dispatch/1"), At: at},
		{Author: "bot", Body: ReplyText("triage", 8, "gha-dispatch/9000"), At: at},
		{Author: "bot", Body: ReplyText("code", 9, ""), At: at.Add(time.Minute)},
		{Author: "bot", Body: "a reaction's comment, no record"},
	}
	want := []Delivered{{Harness: "triage", Comment: 8, Run: "gha-dispatch/9000", At: at},
		{Harness: "code", Comment: 9, At: at.Add(time.Minute)}}
	if got := Steered(rs, "bot"); !reflect.DeepEqual(got, want) {
		t.Fatalf("Steered = %+v, want %+v", got, want)
	}
	if got := Steered(rs, ""); got != nil {
		t.Fatalf("no own account: %+v", got)
	}
}
