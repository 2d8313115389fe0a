package jirasim

import (
	"fmt"
	"testing"
)

// BenchmarkSearch measures one search over 1000 issues with inline
// properties (the poll driver's discovery query).
func BenchmarkSearch(b *testing.B) {
	s := New(Options{})
	for i := 0; i < 1000; i++ {
		key := s.AddIssue(IssueSpec{Project: "PROJ", Labels: []string{fmt.Sprint("l", i%7)}})
		if i%3 == 0 {
			s.SetPropertyDirect(key, "lock", []byte(`{"id":"x"}`))
		}
	}
	body := `{"jql":"project = PROJ AND statusCategory != Done AND labels in (l1, l2) ORDER BY updated DESC","fields":["summary","labels","created","updated","status","reporter","creator","project"],"properties":["lock"],"maxResults":100}`
	b.ReportAllocs()
	for b.Loop() {
		if _, msg, code := search(&testing.T{}, s, body); code != 200 {
			b.Fatal(msg)
		}
	}
}

// BenchmarkParseJQL measures parsing a typical operator query.
func BenchmarkParseJQL(b *testing.B) {
	q := "project in (PROJ, OPS) AND statusCategory != Done AND (labels = bug OR updated >= -15m) ORDER BY created DESC"
	for b.Loop() {
		if _, err := parseJQL(q); err != nil {
			b.Fatal(err)
		}
	}
}
