package github

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Self answers the token's login, the Actions bot for a token without a
// user (403, 404), and fails on a refused token and on anything else.
func TestSelf(t *testing.T) {
	tests := []struct {
		status  int
		body    string
		want    string
		refused bool
		fails   bool
	}{
		{200, `{"login":"octo"}`, "octo", false, false},
		{403, `{"message":"Resource not accessible by integration"}`, ActionsBot, false, false},
		{404, `{"message":"Not Found"}`, ActionsBot, false, false},
		{401, `{"message":"Bad credentials"}`, "", true, true},
		{422, `{"message":"nope"}`, "", false, true},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/user" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tt.status)
			_, _ = w.Write([]byte(tt.body))
		}))
		c, err := NewClient(srv.URL, "ghp_x", ClientOptions{HTTPClient: srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Self(context.Background(), c, Policy{MaxRetries: -1})
		srv.Close()
		if got != tt.want || (err != nil) != tt.fails || errors.Is(err, ErrTokenRefused) != tt.refused {
			t.Errorf("%d: Self = %q, %v; want %q (fails %v, refused %v)", tt.status, got, err, tt.want, tt.fails, tt.refused)
		}
	}
}
