package ghadispatch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// answer is what a proxy in front of the emulator makes of a dispatch:
// forward it and rewrite GitHub's answer (forward), or answer alone,
// without GitHub ever seeing the request.
type answer struct {
	forward     bool
	status      int
	contentType string
	body        string
}

// proxied serves the emulator behind a proxy that gives a's answer to
// every workflow dispatch.
func proxied(t *testing.T, e *env, a answer) string {
	t.Helper()
	u, _ := url.Parse(e.url)
	proxy := httputil.NewSingleHostReverseProxy(u)
	rewrite := func(h http.Header) {
		h.Del("Content-Length")
		if a.contentType != "" {
			h.Set("Content-Type", a.contentType)
		} else {
			h.Del("Content-Type")
		}
	}
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodPost && strings.HasSuffix(resp.Request.URL.Path, "/dispatches") {
			resp.StatusCode = a.status
			resp.Body = io.NopCloser(bytes.NewBufferString(a.body))
			resp.ContentLength = int64(len(a.body))
			rewrite(resp.Header)
		}
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.forward && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/dispatches") {
			rewrite(w.Header())
			w.WriteHeader(a.status)
			_, _ = io.WriteString(w, a.body)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// Only GitHub's confirmation of a dispatch is a success: 200 with a JSON
// body naming the run, or 204. Any other answer (a proxy's HTML page, a
// truncated body, "200 {}", a body of another content type, another 2xx,
// a 5xx) leaves the outcome unknown: an error wrapping ErrAmbiguous, never
// ErrNotStarted. A definite refusal (4xx but 408 and 429) wraps
// ErrNotStarted.
func TestDispatchAnswers(t *testing.T) {
	const js = "application/json; charset=utf-8"
	const html = "<html><body>Gateway login</body></html>"
	tests := []struct {
		name string
		a    answer
		want string // "run", "204", "unknown", "refused", "failed" (neither refused nor confirmed)
		runs int    // runs the emulator holds afterwards
	}{
		{"200 with the run", answer{forward: true, status: 200, contentType: js, body: `{"workflow_run_id":7,"run_url":"u","html_url":"h"}`}, "run", 1},
		{"204", answer{forward: true, status: 204}, "204", 1},
		{"200 {}", answer{forward: true, status: 200, contentType: js, body: `{}`}, "unknown", 1},
		{"200 with a zero run id", answer{forward: true, status: 200, contentType: js, body: `{"workflow_run_id":0}`}, "unknown", 1},
		{"proxy HTML 200, dispatched", answer{forward: true, status: 200, contentType: "text/html", body: html}, "unknown", 1},
		{"proxy HTML 200, not dispatched", answer{status: 200, contentType: "text/html", body: html}, "unknown", 0},
		{"truncated JSON", answer{forward: true, status: 200, contentType: js, body: `{"workflow_run_id":12`}, "unknown", 1},
		{"JSON body with another content type", answer{forward: true, status: 200, contentType: "text/plain", body: `{"workflow_run_id":7}`}, "unknown", 1},
		{"201", answer{forward: true, status: 201, contentType: js, body: `{"workflow_run_id":7}`}, "unknown", 1},
		{"202", answer{forward: true, status: 202, contentType: js, body: `{}`}, "unknown", 1},
		{"422", answer{status: 422, contentType: js, body: `{"message":"Unexpected inputs provided"}`}, "refused", 0},
		{"404", answer{status: 404, contentType: js, body: `{"message":"Not Found"}`}, "refused", 0},
		{"403", answer{status: 403, contentType: js, body: `{"message":"Resource not accessible by integration"}`}, "refused", 0},
		{"500 after GitHub acted", answer{forward: true, status: 500, contentType: js, body: `{"message":"boom"}`}, "failed", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, githubsim.Options{})
			d := e.driver(t, func(o *Options) { o.APIURL = proxied(t, e, tc.a); o.MaxRetries = -1 })
			res := d.Dispatch(context.Background(), []plan.Run{jiraRun(t)})[0]
			switch tc.want {
			case "run":
				if res.Err != nil || res.Ref == nil || res.Ref.ID != "7" {
					t.Fatalf("result %+v, err %v; want run 7", res.Ref, res.Err)
				}
			case "204":
				if res.Err != nil || res.Ref == nil || res.Ref.ID != "" || res.Ref.Driver != Name {
					t.Fatalf("result %+v, err %v; want a success without a run id", res.Ref, res.Err)
				}
			case "unknown":
				if res.Err == nil || !errors.Is(res.Err, ErrAmbiguous) || errors.Is(res.Err, output.ErrNotStarted) || res.Ref != nil {
					t.Fatalf("result %+v, err %v; want an unknown outcome (ErrAmbiguous, not ErrNotStarted)", res.Ref, res.Err)
				}
			case "failed":
				if res.Err == nil || errors.Is(res.Err, output.ErrNotStarted) || res.Ref != nil {
					t.Fatalf("result %+v, err %v; want a failure that is not a refusal", res.Ref, res.Err)
				}
			case "refused":
				if res.Err == nil || !errors.Is(res.Err, output.ErrNotStarted) || errors.Is(res.Err, ErrAmbiguous) {
					t.Fatalf("result %+v, err %v; want a refusal (ErrNotStarted)", res.Ref, res.Err)
				}
			}
			if n := len(e.sim.Runs()); n != tc.runs {
				t.Errorf("emulator has %d runs, want %d", n, tc.runs)
			}
		})
	}
}
