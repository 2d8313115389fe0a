// Package simtest holds what the emulators' own tests share.
package simtest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// WriteCase is one request to an emulator and its write count after it.
type WriteCase struct {
	Method, Path, Auth string // Auth "": no Authorization header (a refused request)
	Writes             int
}

// CheckWrites serves h, sends the cases in order (a JSON body of "{}"),
// and fails t whenever writes() after a case is not the case's count.
func CheckWrites(t *testing.T, h http.Handler, writes func() int, cases []WriteCase) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.Method, srv.URL+tc.Path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		if tc.Auth != "" {
			req.Header.Set("Authorization", tc.Auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := writes(); got != tc.Writes {
			t.Errorf("after %s %s: Writes() = %d, want %d", tc.Method, tc.Path, got, tc.Writes)
		}
	}
}
