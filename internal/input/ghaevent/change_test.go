package ghaevent

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
)

// TestChangeTime: openings, comments, label changes and reviews carry
// their change time (the one github-poll finds for the same change);
// other actions none. Mapper maps a parsed payload exactly as Read.
func TestChangeTime(t *testing.T) {
	cases := []struct {
		file  string
		field func(p map[string]map[string]any) any // nil: zero
	}{
		{"issues.opened.json", func(p map[string]map[string]any) any { return p["issue"]["created_at"] }},
		{"issues.labeled.json", func(p map[string]map[string]any) any { return p["issue"]["updated_at"] }},
		{"issues.unlabeled.json", func(p map[string]map[string]any) any { return p["issue"]["updated_at"] }},
		{"issue_comment.created-pr.json", func(p map[string]map[string]any) any { return p["comment"]["created_at"] }},
		{"pull_request.opened.json", func(p map[string]map[string]any) any { return p["pull_request"]["created_at"] }},
		{"pull_request.labeled.json", func(p map[string]map[string]any) any { return p["pull_request"]["updated_at"] }},
		{"pull_request_review.submitted.json", func(p map[string]map[string]any) any { return p["review"]["submitted_at"] }},
		{"issues.edited.json", nil},
		{"pull_request.synchronize.json", nil},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			path := "testdata/" + tc.file
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lk := newFake()
			d, err := New(Options{EventName: eventNameOf(path), Payload: data, Permissions: lk, Pulls: lk})
			if err != nil {
				t.Fatal(err)
			}
			ev, err := d.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var want time.Time
			if tc.field != nil {
				var p map[string]map[string]any
				_ = json.Unmarshal(data, &p) // "action" is not an object: skipped
				want, err = time.Parse(time.RFC3339, tc.field(p).(string))
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := d.ChangeTime(); !got.Equal(want) {
				t.Fatalf("ChangeTime = %s, want %s", got, want)
			}
			parsed, err := parseFor(eventNameOf(path), data)
			if err != nil {
				t.Fatal(err)
			}
			mev, at, err := NewMapper(Options{Permissions: lk, Pulls: lk}).Map(context.Background(), eventNameOf(path), parsed)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(ev)
			b, _ := json.Marshal(mev)
			if !bytes.Equal(a, b) || !at.Equal(want) {
				t.Fatalf("Mapper differs from Read:\n%s\n%s", a, b)
			}
		})
	}
	if _, _, err := NewMapper(Options{}).Map(context.Background(), "push", nil); err == nil {
		t.Fatal("Map accepted a push event")
	}
}

func parseFor(name string, data []byte) (any, error) {
	return gogithub.ParseWebHook(name, data)
}
