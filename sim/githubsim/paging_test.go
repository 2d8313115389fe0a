package githubsim

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	cases := []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{"", time.Time{}, false},
		{"2026-03-01T10:00:00Z", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), false},
		{"2026-03-01T12:00:00+02:00", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), false},
		{"2026-03-01T10:00:00.5Z", time.Date(2026, 3, 1, 10, 0, 0, 5e8, time.UTC), false},
		{"2026-03-01", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), false},
		{"yesterday", time.Time{}, true},
		{"2026-13-01T00:00:00Z", time.Time{}, true},
	}
	for _, tc := range cases {
		got, err := parseSince(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && !got.Equal(tc.want)) {
			t.Errorf("parseSince(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// FuzzListQuery feeds query strings to the shared listing parsers and the
// paging: paging values stay in range and pages in bounds.
func FuzzListQuery(f *testing.F) {
	f.Add("since=2026-03-01T10:00:00Z&per_page=500&page=2&state=all&sort=updated&direction=asc", 250)
	f.Add("page=-1&per_page=abc", 3)
	f.Add("page=9223372036854775807&per_page=100", 7)
	f.Add("since=2026-03-01T10:00:00%2B01:00&direction=up", 0)
	f.Fuzz(func(t *testing.T, raw string, n int) {
		q, err := url.ParseQuery(raw)
		if err != nil || n < 0 || n > 1000 {
			return
		}
		page, perPage := pageOf(q)
		if page < 1 || perPage < 1 || perPage > 100 {
			t.Fatalf("paging %d/%d for %q", page, perPage, raw)
		}
		if _, err := readQuery(q, "Issue", "open", true, "created", "updated"); err != nil && q.Get("since") == "" &&
			q.Get("state") == "" && q.Get("sort") == "" && q.Get("direction") == "" {
			t.Fatalf("refused %q: %v", raw, err)
		}
		r := httptest.NewRequest(http.MethodGet, "/x?"+q.Encode(), nil)
		items := make([]int, n)
		if got := paginate(httptest.NewRecorder(), r, items); len(got) > perPage {
			t.Fatalf("%d items on a page of %d", len(got), perPage)
		}
	})
}
