// Package gitlabpipeline is the `gitlab-pipeline` output driver: it starts
// each planned run as a GitLab pipeline through the API and then enforces
// the serialize-and-coalesce rule of docs/scheduling.md, which GitLab does
// not provide natively (it keeps every job waiting for a resource group).
//
// A scope's pipelines are recognised by name: the generated .gitlab-ci.yml
// names every API pipeline "fullsend:$FULLSEND_RESOURCE_KEY" and puts its
// agent job in resource group "fullsend-$FULLSEND_RESOURCE_KEY". After
// creating pipeline N, the driver settles N against the scope's other
// pipelines (Settle: N is cancelled when a pipeline of a newer change, or
// an earlier one of its own change, is live), then lists the scope's
// pipelines that are still created or waiting_for_resource, and cancels
// those N supersedes (carrying an older change; created before N when
// either carries no change: newest.Supersedes) whose jobs all still wait
// (checked job by job right before each cancel).
// A pipeline whose job holds the resource (pending, running) is never
// cancelled. The remaining race (a waiter acquiring the resource between
// that check and the cancel) is closed on the runner side by Superseded:
// see docs/gitlab.md for the exact guarantee.
package gitlabpipeline

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// Name is the driver name used in config and plan.Ref.Driver.
const Name = drivername.GitLabPipeline

// Driver creates pipelines and coalesces waiting ones. It is safe for
// concurrent use.
type Driver struct {
	o     Options
	gl    *gitlab.Client
	clock *trackerclock.Clock // GitLab's, from the client's answers

	mu      sync.Mutex
	modeSet map[string]bool // resource groups already switched to newest_first
}

var (
	_ output.Driver    = (*Driver)(nil)
	_ output.Canceller = (*Driver)(nil)
)

// New validates o and builds a Driver. A configuration problem wraps
// ErrConfig.
func New(o Options) (*Driver, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	clock := trackerclock.New(nil)
	gl, err := newClient(o, clock)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return &Driver{o: o, gl: gl, clock: clock, modeSet: map[string]bool{}}, nil
}

// PlatformNow implements poll.PlatformClock: GitLab's time, read from the
// client's answers; before the first, it asks GET /version (any answer
// carries GitLab's Date). ok is false when no answer came.
func (d *Driver) PlatformNow(ctx context.Context) (now time.Time, ok bool) {
	if !d.clock.Known() {
		_, _, _ = d.gl.Version.GetVersion(gitlab.WithContext(ctx))
	}
	if !d.clock.Known() {
		return time.Time{}, false
	}
	return d.clock.Now(), true
}

// Name returns "gitlab-pipeline".
func (d *Driver) Name() string { return Name }

// Dispatch creates one pipeline per run, in order. A run whose pipeline
// could not be created (or whose creation is uncertain, e.g. a timeout
// after sending) has Err set and no Ref; creation is never retried after
// the request may have reached GitLab. Coalescing failures after a
// successful creation are logged, not returned: the run was started.
func (d *Driver) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	out := make([]output.Result, len(runs))
	for i, run := range runs {
		out[i] = output.Result{Run: run}
		if ctx.Err() != nil {
			out[i].Err = fmt.Errorf("gitlab-pipeline: %s for %s not started: %w", run.Harness, run.Key, ctx.Err())
			continue
		}
		ref, err := d.dispatchOne(ctx, run)
		out[i].Ref, out[i].Err = ref, err
	}
	return out
}

func (d *Driver) dispatchOne(ctx context.Context, run plan.Run) (*plan.Ref, error) {
	if run.Event == nil || run.Key == "" || run.Harness == "" {
		return nil, fmt.Errorf("gitlab-pipeline: run for harness %q has no event, harness or scope key", run.Harness)
	}
	vars := Variables(run)
	opts := make([]*gitlab.PipelineVariableOptions, len(vars))
	for i, v := range vars {
		opts[i] = &gitlab.PipelineVariableOptions{Key: gitlab.Ptr(v[0]), Value: gitlab.Ptr(v[1]),
			VariableType: gitlab.Ptr(gitlab.EnvVariableType)}
	}
	p, resp, err := d.gl.Pipelines.CreatePipeline(d.o.Project, &gitlab.CreatePipelineOptions{
		Ref: gitlab.Ptr(d.o.Ref), Variables: &opts}, gitlab.WithContext(glapi.WriteCtx(ctx)))
	if err != nil {
		return nil, createError(run, d.o, err)
	}
	if err := confirmed(resp, p); err != nil {
		// An answer that is not GitLab's confirmation (a proxy's "200 {}",
		// another status or content type) cannot be recorded, and the
		// pipeline may have been created: reported like an unanswered
		// request, never repeated.
		return nil, fmt.Errorf("gitlab-pipeline: create pipeline for %s in project %s on %s: %w: %w",
			run.Key, d.o.Project, d.o.Ref, errNoPipelineID, err)
	}
	ref := &plan.Ref{Driver: Name, ID: strconv.FormatInt(p.ID, 10), URL: p.WebURL}
	rk := glapi.ResourceKey(run.Key)
	log := d.o.Log.With("driver", Name, "project", d.o.Project, "pipeline", p.ID, "scope", string(run.Key))
	log.Info("pipeline created", "url", p.WebURL, "harness", run.Harness)
	l := glapi.NewScopeList(d.gl, d.o.Project, glapi.PipelineName(rk))
	me := newest.Run{ID: p.ID, Seq: p.ID, Key: run.WorkItem.IdempotencyKey}
	if settles(run) {
		var kept bool
		kept, me, err = settle(ctx, l, run.WorkItem.IdempotencyKey, p.ID)
		if err != nil {
			log.Warn("settling against the other pipelines of the scope failed; a duplicate pipeline may run", "error", err.Error())
		}
		if !kept {
			log.Info("pipeline cancelled: a pipeline of its scope carries the same change or a newer one", "key", run.WorkItem.IdempotencyKey)
			return ref, nil
		}
	}
	d.ensureProcessMode(ctx, rk)
	res, err := d.coalesce(ctx, rk, me, l)
	if err != nil {
		log.Warn("coalescing incomplete; superseded pipelines that start will exit early", "error", err.Error())
	}
	if len(res.Cancelled)+len(res.Kept) > 0 {
		log.Info("coalesced scope", "cancelled", res.Cancelled, "kept_holding", res.Kept)
	}
	return ref, nil
}

// Cancel cancels a pipeline recorded in ref (from a poll lock). A pipeline
// that already finished is reported, not an error. The project is taken
// from ref.URL when it names one, else the driver's project.
func (d *Driver) Cancel(ctx context.Context, ref plan.Ref) (string, error) {
	if ref.Driver != Name {
		return "", fmt.Errorf("gitlab-pipeline: cannot cancel a %q run", ref.Driver)
	}
	id, err := strconv.ParseInt(ref.ID, 10, 64)
	if err != nil || id < 1 {
		return "", fmt.Errorf("gitlab-pipeline: run id %q is not a pipeline id", ref.ID)
	}
	project := projectFromURL(ref.URL, d.o.APIURL, d.o.Project)
	p, _, err := d.gl.Pipelines.GetPipeline(project, id, gitlab.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("gitlab-pipeline: get pipeline %d in project %s: %w", id, project, err)
	}
	if Finished(p.Status) {
		return fmt.Sprintf("pipeline %d already %s", id, p.Status), nil
	}
	p, _, err = d.gl.Pipelines.CancelPipelineBuild(project, id, gitlab.WithContext(glapi.WriteCtx(ctx)))
	if err != nil {
		return "", fmt.Errorf("gitlab-pipeline: cancel pipeline %d in project %s: %w", id, project, err)
	}
	return fmt.Sprintf("pipeline %d cancelled (status %s)", id, p.Status), nil
}

// projectFromURL extracts "group/sub/project" from a pipeline web URL
// "<web base>/group/sub/project/-/pipelines/123", where the web base is the
// API URL without /api/v4; def when the URL has another form.
func projectFromURL(raw, apiURL, def string) string {
	base := strings.TrimSuffix(apiURL, "/api/v4") + "/"
	rest, ok := strings.CutPrefix(raw, base)
	if !ok {
		return def
	}
	i := strings.Index(rest, "/-/pipelines/")
	if i <= 0 {
		return def
	}
	return rest[:i]
}

// createError explains a failed pipeline creation; a definite refusal
// wraps output.ErrNotStarted.
func createError(run plan.Run, o Options, err error) error {
	if glapi.Refused(err) {
		err = fmt.Errorf("%w (%w)", err, output.ErrNotStarted)
	}
	if isUnauthorized(err) {
		return fmt.Errorf("gitlab-pipeline: GitLab rejected the token (%w): set GITLAB_TOKEN to a valid token: %w", output.ErrCredentials, err)
	}
	return fmt.Errorf("gitlab-pipeline: create pipeline for %s in project %s on %s%s: %w", run.Key, o.Project, o.Ref, createNote(err), err)
}

// confirmed checks that a pipeline creation's answer is GitLab's
// confirmation: 201 Created with a JSON pipeline that has an id.
func confirmed(resp *gitlab.Response, p *gitlab.Pipeline) error {
	switch {
	case resp == nil || resp.Response == nil:
		return errors.New("no answer recorded")
	case resp.StatusCode != http.StatusCreated:
		return fmt.Errorf("GitLab answered %d, not 201", resp.StatusCode)
	case !isJSON(resp.Header.Get("Content-Type")):
		return fmt.Errorf("GitLab answered 201 with content type %q, not JSON", resp.Header.Get("Content-Type"))
	case p == nil || p.ID <= 0:
		return errors.New("the answer names no pipeline id")
	}
	return nil
}

// isJSON reports whether a Content-Type header names JSON.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// createNote explains a failed pipeline creation: whether the pipeline may
// exist anyway (the request reached GitLab but its answer was an error or
// never came), or which project setting refused the pipeline variables.
// errNoPipelineID is a successful create answer that names no pipeline.
var errNoPipelineID = errors.New("GitLab's answer is not its confirmation of a created pipeline (the pipeline may exist; not retried to avoid a duplicate run)")

func createNote(err error) string {
	const mayExist = ": the pipeline may exist; not retried to avoid a duplicate run)"
	var er *gitlab.ErrorResponse
	switch {
	case errors.As(err, &er) && er.Response != nil:
		switch st := er.Response.StatusCode; {
		case st >= 500:
			return fmt.Sprintf(" (GitLab answered %d after receiving the request%s", st, mayExist)
		case st == http.StatusBadRequest && strings.Contains(er.Message, "Insufficient permissions to set pipeline variables"):
			return " (the project does not let the token's role set pipeline variables: in Settings > CI/CD > Variables " +
				"set \"Minimum role to use pipeline variables\" to the token's role or lower, e.g. Developer)"
		}
		return ""
	case isTimeout(err):
		return " (timed out after sending" + mayExist
	case errors.Is(err, context.Canceled), glapi.NeverSent(err), errors.Is(err, gitlab.ErrNotFound):
		return ""
	}
	return " (no answer after sending" + mayExist
}

// isUnauthorized reports whether GitLab refused the token (HTTP 401).
func isUnauthorized(err error) bool {
	var er *gitlab.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnauthorized
}

// isTimeout reports whether err is a request timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Finished reports whether a pipeline status is final: success, failed,
// canceled or skipped.
func Finished(status string) bool {
	switch status {
	case "success", "failed", "canceled", "skipped":
		return true
	}
	return false
}
