package ghadispatch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// nullRuns answers every run listing with a null where a run should be,
// as a broken proxy or a hostile server could.
type nullRuns struct{ next http.RoundTripper }

func (n nullRuns) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/runs") {
		return n.next.RoundTrip(req)
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Request: req,
		Body: io.NopCloser(strings.NewReader(`{"total_count":1,"workflow_runs":[null]}`))}, nil
}

// TestMalformedRunListIsAnError: the lookup of an interrupted dispatch's
// run, answered with a null run, is an error (the poller then blocks the
// item for the cycle: nothing dispatched twice), not a crash.
func TestMalformedRunListIsAnError(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	d := e.driver(t, func(o *Options) { o.HTTPClient = &http.Client{Transport: nullRuns{tr}} })
	run := jiraRun(t)
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	run.WorkItem.IdempotencyKey = changepos.KeyAt(string(run.Key), at)
	_, found, err := d.FindDispatched(context.Background(), run, at)
	var me *github.MalformedError
	if found || !errors.As(err, &me) {
		t.Fatalf("found %v, err %v; want a malformed answer", found, err)
	}
}
