package github

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
)

// TestEchoedCredentialsAreRedacted: a server that repeats the credential
// in its 401/500 body must not make fullsend print it, in the error or in
// a retry log line.
func TestEchoedCredentialsAreRedacted(t *testing.T) {
	const tok = "ghp_S3CRETtoken42"
	for _, status := range []int{http.StatusUnauthorized, http.StatusInternalServerError} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"message":"Bad credentials: ` + r.Header.Get("Authorization") + `"}`))
		}))
		c, err := NewClient(srv.URL, tok, ClientOptions{Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		p := Policy{MaxRetries: 2, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
			OnRetry: func(f *Failure, wait time.Duration) {
				log.Info("retrying", "attempt", f.Attempts, "wait", wait, "error", f.Err.Error())
			}}
		_, err = Call(context.Background(), p, func(ctx context.Context) (*gogithub.Response, error) {
			_, resp, err := c.Repositories.Get(ctx, "a", "b")
			return resp, err
		})
		c.Client().CloseIdleConnections()
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), "Bad credentials") {
			t.Fatalf("HTTP %d: err = %v, want the server's message", status, err)
		}
		if status == http.StatusInternalServerError && !strings.Contains(logs.String(), "Bad credentials") {
			t.Fatalf("no retry logged: %s", logs.String())
		}
		for _, out := range []string{err.Error(), logs.String()} {
			if strings.Contains(out, tok) || strings.Contains(out, "Bearer "+tok) {
				t.Errorf("HTTP %d: credential printed: %s", status, out)
			}
		}
	}
}

// TestAPIURLCredentialsNeverPrinted: credentials written into
// GITHUB_API_URL stay out of the error, however broken the URL is.
func TestAPIURLCredentialsNeverPrinted(t *testing.T) {
	for _, raw := range []string{
		"https://u:T0KEN-xyz@api.example/%zz",
		"https://u:T0KEN-xyz@api example/",
		"https://u:T0KEN-xyz@[::1/",
		"https://u:T0KEN-xyz@api.example/",
		"https://T0KEN-xyz@api.example:port/",
		"http://u:T0KEN-xyz@example.com/",
		"https://u:T0KEN/xyz@api.example/",
	} {
		env := EnvOf(func(k string) string {
			if k == "GITHUB_API_URL" {
				return raw
			}
			return ""
		})
		_, err := NewClient(env.APIURL, "", ClientOptions{})
		if err == nil {
			t.Errorf("%q accepted", raw)
			continue
		}
		if strings.Contains(err.Error(), "T0KEN") || strings.Contains(err.Error(), "xyz") {
			t.Errorf("%q: error shows the credentials: %v", raw, err)
		}
		if !strings.Contains(err.Error(), "GITHUB_API_URL") {
			t.Errorf("%q: error does not name the variable: %v", raw, err)
		}
	}
}
