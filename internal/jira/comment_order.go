package jira

import (
	"slices"
	"strings"
)

// CompareComments orders two comments oldest first: by creation, then by
// id (Jira's ids grow), so that comments created in the same millisecond
// keep their real order.
func CompareComments(a, b Comment) int {
	if c := a.Created.Compare(b.Created.Time); c != 0 {
		return c
	}
	if len(a.ID) != len(b.ID) {
		return len(a.ID) - len(b.ID)
	}
	return strings.Compare(a.ID, b.ID)
}

// SortComments returns a sorted copy of cs, whatever order the read
// listed them in: oldest first, or newest first when newest is set (see
// CompareComments). Comments that compare equal keep their order.
func SortComments(cs []Comment, newest bool) []Comment {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b Comment) int {
		if newest {
			return CompareComments(b, a)
		}
		return CompareComments(a, b)
	})
	return out
}
