package gitlabpipeline

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// TestEchoedCredentialsAreRedacted: a GitLab (or proxy) that repeats the
// token in its 401/500 body must not make fullsend print it, in the error
// or in the retry log.
func TestEchoedCredentialsAreRedacted(t *testing.T) {
	const tok = "glpat-S3CRET-token"
	for _, status := range []int{http.StatusUnauthorized, http.StatusInternalServerError} {
		calls := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls++
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"message":"401 Unauthorized: token ` + r.Header.Get("PRIVATE-TOKEN") + ` / ` + r.Header.Get("Authorization") + `"}`))
		}))
		var logs bytes.Buffer
		tr := http.DefaultTransport.(*http.Transport).Clone()
		d, err := New(Options{APIURL: srv.URL, Token: tok, Project: testProject, Ref: "main",
			Log:       slog.New(slog.NewTextHandler(&logs, nil)),
			RetryBase: time.Millisecond, RetryMax: time.Millisecond, Timeout: time.Minute,
			RateLimiter: rate.NewLimiter(rate.Inf, 0), Transport: tr})
		if err != nil {
			t.Fatal(err)
		}
		res := d.Dispatch(context.Background(), []plan.Run{mkRun("triage", 1, "x")})
		_, rerr := d.Superseded(context.Background(), "fullsend-key", 1, "") // a read: retried on 500
		tr.CloseIdleConnections()
		srv.Close()
		if res[0].Err == nil || rerr == nil || !strings.Contains(rerr.Error(), "Unauthorized") {
			t.Fatalf("HTTP %d: dispatch err %v, read err %v; want the server's message", status, res[0].Err, rerr)
		}
		if status == http.StatusInternalServerError && (!strings.Contains(logs.String(), "retrying") || calls < 3) {
			t.Fatalf("read not retried (%d calls): %s", calls, logs.String())
		}
		for _, out := range []string{res[0].Err.Error(), rerr.Error(), logs.String()} {
			if strings.Contains(out, tok) || strings.Contains(out, "Bearer "+tok) {
				t.Errorf("HTTP %d: credential printed: %s", status, out)
			}
		}
	}
}

// An answer above MaxBody fails with an error that says so, not with a
// truncated body or io.EOF.
func TestOversizedAnswerSaysSo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"id":1,"status":"running","name":"` + strings.Repeat("x", 500) + `"}]`))
	}))
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	d, err := New(Options{APIURL: srv.URL, Token: "glpat-cap-test", Project: testProject, Ref: "main", MaxBody: 100,
		Timeout: time.Minute, RateLimiter: rate.NewLimiter(rate.Inf, 0), Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Superseded(context.Background(), "fullsend-key", 1, "")
	if !errors.Is(err, httpx.ErrTooLarge) || !strings.Contains(err.Error(), "response body over 100 bytes") {
		t.Fatalf("err = %v, want the body cap named", err)
	}
}
