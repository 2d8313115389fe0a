package gitlabpipeline

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

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
	_, err = d.Superseded(context.Background(), "fullsend-key", 1)
	if !errors.Is(err, httpx.ErrTooLarge) || !strings.Contains(err.Error(), "response body over 100 bytes") {
		t.Fatalf("err = %v, want the body cap named", err)
	}
}
