package jira_test

import (
	"slices"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/jira"
)

func TestSortComments(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(id string, d time.Duration) jira.Comment {
		return jira.Comment{ID: id, Created: jira.Time{Time: t0.Add(d)}}
	}
	// Listed in no order; 9 and 10 share a millisecond (10 > 9 as ids).
	cs := []jira.Comment{at("10", 0), at("3", -time.Second), at("9", 0), at("11", time.Second)}
	ids := func(cs []jira.Comment) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	tests := []struct {
		name   string
		newest bool
		want   []string
	}{
		{"oldest first", false, []string{"3", "9", "10", "11"}},
		{"newest first", true, []string{"11", "10", "9", "3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(cs)
			got := ids(jira.SortComments(cs, tt.newest))
			if !slices.Equal(got, tt.want) {
				t.Errorf("SortComments(newest=%v) = %v, want %v", tt.newest, got, tt.want)
			}
			if !slices.EqualFunc(cs, before, func(a, b jira.Comment) bool { return a.ID == b.ID }) {
				t.Errorf("SortComments changed its input: %v", ids(cs))
			}
		})
	}
}
