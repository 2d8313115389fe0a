package ghadispatch

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// A dispatch GitHub accepted but answered without workflow_run_id (a
// proxy's "200 {}", or 204) is a success without a run id: the run
// exists, so it is neither an error nor dispatched again.
func TestDispatchAnsweredWithoutRunID(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		wantWarn bool
	}{
		{"200 {}", http.StatusOK, `{}`, true},
		{"200 with a zero run id", http.StatusOK, `{"workflow_run_id":0}`, true},
		{"204", http.StatusNoContent, ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, githubsim.Options{})
			u, _ := url.Parse(e.url)
			proxy := httputil.NewSingleHostReverseProxy(u)
			proxy.ModifyResponse = func(resp *http.Response) error {
				if resp.Request.Method == http.MethodPost && strings.HasSuffix(resp.Request.URL.Path, "/dispatches") &&
					resp.StatusCode < 300 {
					resp.StatusCode = tc.status
					resp.Body = io.NopCloser(bytes.NewBufferString(tc.body))
					resp.ContentLength = int64(len(tc.body))
					resp.Header.Del("Content-Length")
				}
				return nil
			}
			srv := httptest.NewServer(proxy)
			t.Cleanup(srv.Close)
			d := e.driver(t, func(o *Options) { o.APIURL = srv.URL + "/" })
			res := d.Dispatch(context.Background(), []plan.Run{jiraRun(t)})
			if res[0].Err != nil {
				t.Fatalf("err = %v, want success without a run id", res[0].Err)
			}
			if res[0].Ref == nil || res[0].Ref.ID != "" || res[0].Ref.Driver != Name {
				t.Fatalf("Ref = %+v, want a gha-dispatch ref without id", res[0].Ref)
			}
			if n, c := len(e.sim.Runs()), e.sim.Calls(githubsim.EndpointDispatch); n != 1 || c != 1 {
				t.Errorf("runs %d, dispatch calls %d; want 1 and 1", n, c)
			}
			if got := strings.Contains(e.logs.String(), "GitHub returned no run id"); got != tc.wantWarn {
				t.Errorf("warning logged = %v, want %v; logs:\n%s", got, tc.wantWarn, e.logs.String())
			}
		})
	}
}
