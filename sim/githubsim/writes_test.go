package githubsim

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Writes counts every request but GET and HEAD, refused ones included.
func TestWritesCountsOnlyWrites(t *testing.T) {
	s := New(Options{Token: "tok"})
	h := httptest.NewServer(s.Handler())
	defer h.Close()
	cases := []struct {
		method, path, auth string
		writes             int
	}{
		{"GET", "/repos/acme/platform", "Bearer tok", 0},
		{"HEAD", "/repos/acme/platform", "Bearer tok", 0},
		{"POST", "/repos/acme/platform/actions/workflows/w.yml/dispatches", "Bearer tok", 1},
		{"POST", "/repos/acme/platform/actions/runs/1/cancel", "", 2},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, h.URL+tc.path, strings.NewReader("{}"))
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
}
