package jirasim

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Writes counts PUT, DELETE and POST requests, except the POSTs that only
// read (search, bulk changelogs), refused ones included.
func TestWritesCountsOnlyWrites(t *testing.T) {
	s := New(Options{})
	h := httptest.NewServer(s.Handler())
	defer h.Close()
	cases := []struct {
		method, path, auth string
		writes             int
	}{
		{"GET", "/rest/api/3/myself", "Bearer t", 0},
		{"POST", "/rest/api/3/search/jql", "Bearer t", 0},
		{"POST", "/rest/api/3/changelog/bulkfetch", "Bearer t", 0},
		{"PUT", "/rest/api/3/user/properties/k?accountId=a", "Bearer t", 1},
		{"PUT", "/rest/api/3/issue/PROJ-1/properties/k", "", 2},
		{"DELETE", "/rest/api/3/issue/PROJ-1/properties/k", "Bearer t", 3},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, h.URL+tc.path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := s.Writes(); got != tc.writes {
			t.Errorf("after %s %s: Writes() = %d, want %d", tc.method, tc.path, got, tc.writes)
		}
	}
	if s.ResetCalls(); s.Writes() != 0 {
		t.Error("ResetCalls left the write count")
	}
}
