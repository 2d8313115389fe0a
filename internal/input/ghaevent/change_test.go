package ghaevent

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
)

// TestChangePos: openings, comments, label changes and reviews carry
// their change position (the one github-poll finds for the same change):
// the time, and the comment's or review's id; other actions none. Mapper
// maps a parsed payload exactly as Read.
func TestChangePos(t *testing.T) {
	type payload = map[string]map[string]any
	cases := []struct {
		file  string
		field func(p payload) any // nil: zero
		id    func(p payload) any // nil: no id
	}{
		{"issues.opened.json", func(p payload) any { return p["issue"]["created_at"] }, nil},
		{"issues.labeled.json", func(p payload) any { return p["issue"]["updated_at"] }, nil},
		{"issues.unlabeled.json", func(p payload) any { return p["issue"]["updated_at"] }, nil},
		{"issue_comment.created-pr.json", func(p payload) any { return p["comment"]["created_at"] }, func(p payload) any { return p["comment"]["id"] }},
		{"pull_request.opened.json", func(p payload) any { return p["pull_request"]["created_at"] }, nil},
		{"pull_request.labeled.json", func(p payload) any { return p["pull_request"]["updated_at"] }, nil},
		{"pull_request_review.submitted.json", func(p payload) any { return p["review"]["submitted_at"] }, func(p payload) any { return p["review"]["id"] }},
		{"issues.edited.json", nil, nil},
		{"pull_request.synchronize.json", nil, nil},
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
			var want changepos.Pos
			var p payload
			_ = json.Unmarshal(data, &p) // "action" is not an object: skipped
			if tc.field != nil {
				if want.At, err = time.Parse(time.RFC3339, tc.field(p).(string)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.id != nil {
				want.ID = int64(tc.id(p).(float64))
			}
			if got := d.ChangePos(); got != want {
				t.Fatalf("ChangePos = %v, want %v", got, want)
			}
			parsed, err := parseFor(eventNameOf(path), data)
			if err != nil {
				t.Fatal(err)
			}
			mev, pos, err := NewMapper(Options{Permissions: lk, Pulls: lk}).Map(context.Background(), eventNameOf(path), parsed)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(ev)
			b, _ := json.Marshal(mev)
			if !bytes.Equal(a, b) || pos != want || PosOf(parsed) != want {
				t.Fatalf("Mapper differs from Read:\n%s\n%s\n%v, want %v", a, b, pos, want)
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
