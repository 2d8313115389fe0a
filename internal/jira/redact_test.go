package jira

import (
	"bytes"
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestEchoedCredentialsAreRedacted: a server (or proxy) that repeats the
// credential it got in its error body must not make fullsend print it, in
// the error or in the retry log.
func TestEchoedCredentialsAreRedacted(t *testing.T) {
	const tok = "jira-S3CRET-tok"
	basic := base64.StdEncoding.EncodeToString([]byte("bot@example.com:" + tok))
	for _, tc := range []struct {
		name, email string
		status      int
	}{
		{"bearer 401", "", http.StatusUnauthorized},
		{"basic 401", "bot@example.com", http.StatusUnauthorized},
		{"bearer 500 retried", "", http.StatusInternalServerError},
		{"basic 500 retried", "bot@example.com", http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(`{"errorMessages":["bad credentials: ` + r.Header.Get("Authorization") + ` (token ` + tok + `)"]}`))
			}))
			defer srv.Close()
			var logs bytes.Buffer
			c, err := New(Options{BaseURL: srv.URL, Email: tc.email, Token: tok, MaxRetries: 2,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
				Sleep:  func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Myself(context.Background())
			if err == nil || !strings.Contains(err.Error(), "bad credentials") {
				t.Fatalf("err = %v, want the server's message", err)
			}
			if tc.status == http.StatusInternalServerError && !strings.Contains(logs.String(), "retrying") {
				t.Fatalf("no retry logged: %s", logs.String())
			}
			for _, out := range []string{err.Error(), logs.String()} {
				if strings.Contains(out, tok) || strings.Contains(out, basic) || strings.Contains(out, "Bearer "+tok) {
					t.Errorf("credential printed: %s", out)
				}
			}
		})
	}
}
