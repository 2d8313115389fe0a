package gitlabsim

import (
	"testing"
	"time"
)

// TestResolution: the emulator stamps at the second by default (the
// precision GitLab's documentation gives its times: notes made in one
// second share created_at and differ by id), at the millisecond with
// Resolution (what GitLab.com answers); answers carry milliseconds either
// way.
func TestResolution(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		res  time.Duration
		want string // the second note's created_at, 700ms after at
	}{
		{0, "2026-11-30T12:00:00.000Z"},
		{time.Millisecond, "2026-11-30T12:00:00.700Z"},
	} {
		now := at
		s, c := start(t, Options{Now: func() time.Time { return now }, Resolution: tc.res})
		alice := s.AddUser("alice", false)
		is, _, err := s.CreateIssue("acme/platform", alice.ID, "t", "d", nil)
		if err != nil {
			t.Fatal(err)
		}
		now = at.Add(300 * time.Millisecond)
		first, _, err := s.AddNote("acme/platform", NoteableIssue, is.IID, alice.ID, "one")
		if err != nil {
			t.Fatal(err)
		}
		now = at.Add(700 * time.Millisecond)
		second, _, err := s.AddNote("acme/platform", NoteableIssue, is.IID, alice.ID, "two")
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			ID        int64  `json:"id"`
			CreatedAt string `json:"created_at"`
		}
		c.do("GET", "/projects/1/issues/1/notes/"+itoa(second.ID), "", &got)
		if got.CreatedAt != tc.want || second.ID <= first.ID {
			t.Errorf("resolution %v: second note %d created_at %s (first %d); want %s and a larger id", tc.res, got.ID, got.CreatedAt, first.ID, tc.want)
		}
		if tc.res == 0 && !first.CreatedAt.Equal(second.CreatedAt) {
			t.Errorf("notes of one second stamped %s and %s", first.CreatedAt, second.CreatedAt)
		}
	}
}
