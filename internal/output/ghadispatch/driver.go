// Package ghadispatch is the gha-dispatch output driver: it starts each
// planned run as a GitHub Actions workflow_dispatch of the harness's
// workflow with the nine string inputs of docs/github.md, asking for
// run details so the run id and URL can be recorded (in poll locks) and
// cancelled later (`fullsend poll cancel`).
//
// Failure handling: a definite refusal (404, 422, 403, any 4xx but 408 and
// 429) wraps output.ErrNotStarted and explains what to fix; server errors
// and rate limits are retried with capped backoff honouring Retry-After;
// a request that was sent but got no answer, or whose answer is not
// GitHub's confirmation (confirmed), is reported as a failure that may
// have dispatched (ErrAmbiguous) and is never retried.
package ghadispatch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// Name is the driver name.
const Name = drivername.GHADispatch

// MaxInputChars is GitHub's limit on the workflow_dispatch inputs payload
// ("The maximum payload for inputs is 65,535 characters"), counted here
// as the characters of the input values.
const MaxInputChars = 65535

// DefaultWorkflow is dispatched when neither the harness nor the config
// names a workflow.
const DefaultWorkflow = "fullsend-run.yml"

// Options configures New.
type Options struct {
	// Client is used when set; otherwise one is built from APIURL and
	// Token (or, when those are empty, GITHUB_API_URL and GITHUB_TOKEN/
	// GH_TOKEN through Getenv).
	Client *gogithub.Client
	APIURL string
	Token  string
	// HTTPClient and Timeout tune the built client (see github.ClientOptions).
	HTTPClient *http.Client
	Timeout    time.Duration

	// Repo is the owner/repo whose workflow is dispatched; empty means each
	// run's event repo.
	Repo string
	// DefaultWorkflow is used when a run has no per-harness workflow
	// (config outputs.gha-dispatch.workflow); default fullsend-run.yml.
	DefaultWorkflow string
	// Ref is the configured ref (outputs.gha-dispatch.ref); empty means
	// $GITHUB_REF_NAME (unless it is a pull request's merge ref), else the
	// repository's default branch.
	Ref string

	Getenv func(string) string
	Log    *slog.Logger

	// MaxRetries bounds retries of retryable failures (default 4; -1 none).
	MaxRetries int
	// BaseBackoff and MaxBackoff shape the backoff (defaults 1s, 30s);
	// MaxWait caps honoured Retry-After waits (default 60s).
	BaseBackoff, MaxBackoff, MaxWait time.Duration
	// Sleep replaces the wait between retries (tests).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Driver dispatches runs. It is safe for concurrent use; the default
// branch lookup is done at most once per repository that succeeds.
type Driver struct {
	opts   Options
	client *gogithub.Client
	log    *slog.Logger
	clock  *trackerclock.Clock // GitHub's, when the driver built its client

	mu       sync.Mutex
	defaults map[string]string // repo -> default branch
}

var (
	_ output.Driver    = (*Driver)(nil)
	_ output.Canceller = (*Driver)(nil)
)

// New builds a Driver.
func New(o Options) (*Driver, error) {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.DefaultWorkflow == "" {
		o.DefaultWorkflow = DefaultWorkflow
	}
	if o.Repo != "" {
		if _, _, err := github.SplitRepo(o.Repo); err != nil {
			return nil, fmt.Errorf("gha-dispatch: %v", err)
		}
	}
	c := o.Client
	var clock *trackerclock.Clock
	if c == nil {
		env := github.EnvOf(o.Getenv)
		apiURL, token := o.APIURL, o.Token
		if apiURL == "" {
			apiURL = env.APIURL
		}
		if token == "" {
			token = env.Token
		}
		if token == "" {
			return nil, errors.New("gha-dispatch: no GitHub token: set GITHUB_TOKEN or GH_TOKEN to a token with actions: write on the repository")
		}
		var err error
		clock = trackerclock.New(nil)
		c, err = github.NewClient(apiURL, token, github.ClientOptions{HTTPClient: o.HTTPClient, Timeout: o.Timeout, Clock: clock})
		if err != nil {
			return nil, fmt.Errorf("gha-dispatch: %v", err)
		}
	}
	return &Driver{opts: o, client: c, log: o.Log, clock: clock, defaults: map[string]string{}}, nil
}

// githubNow is GitHub's time as the driver's answers tell it, else the
// host's.
func (d *Driver) githubNow() time.Time {
	if d.clock.Known() {
		return d.clock.Now()
	}
	return time.Now()
}

// PlatformNow implements poll.PlatformClock: GitHub's time, read from the
// answers of the client the driver built. Before its first answer it asks
// GET /rate_limit (free on GitHub's rate limit). ok is false when no
// answer came, or with a client passed in Options.Client.
func (d *Driver) PlatformNow(ctx context.Context) (now time.Time, ok bool) {
	if d.clock == nil {
		return time.Time{}, false
	}
	if !d.clock.Known() {
		_, _, _ = d.client.RateLimit.Get(ctx) // any answer carries GitHub's Date
	}
	if !d.clock.Known() {
		return time.Time{}, false
	}
	return d.clock.Now(), true
}

// Name returns "gha-dispatch".
func (d *Driver) Name() string { return Name }

func (d *Driver) policy(idempotent bool, what string) github.Policy {
	return github.Policy{
		MaxRetries: d.opts.MaxRetries, BaseBackoff: d.opts.BaseBackoff, MaxBackoff: d.opts.MaxBackoff,
		MaxWait: d.opts.MaxWait, Sleep: d.opts.Sleep, Idempotent: idempotent,
		OnRetry: func(f *github.Failure, wait time.Duration) {
			d.log.Warn("GitHub call failed, retrying", "call", what, "status", f.Status,
				"attempt", f.Attempts, "wait", wait, "error", f.Err.Error())
		},
	}
}

// Dispatch starts each run in order and returns one Result per run.
func (d *Driver) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	out := make([]output.Result, 0, len(runs))
	for _, r := range runs {
		ref, err := d.dispatchOne(ctx, r)
		out = append(out, output.Result{Run: r, Ref: ref, Err: err})
	}
	return out
}

func (d *Driver) repoFor(r plan.Run) (owner, repo, full string, err error) {
	full = d.opts.Repo
	if full == "" && r.Event != nil {
		full = r.Event.Repo
	}
	owner, repo, err = github.SplitRepo(full)
	return owner, repo, full, err
}

func (d *Driver) dispatchOne(ctx context.Context, r plan.Run) (*plan.Ref, error) {
	if r.Event == nil {
		return nil, fmt.Errorf("gha-dispatch %s: run has no event (%w)", r.Harness, output.ErrNotStarted)
	}
	owner, repo, full, err := d.repoFor(r)
	if err != nil {
		return nil, fmt.Errorf("gha-dispatch %s: %v (%w)", r.Harness, err, output.ErrNotStarted)
	}
	wf := r.Workflow
	if wf == "" {
		wf = d.opts.DefaultWorkflow
	}
	ref, err := d.resolveRef(ctx, owner, repo, full)
	if err != nil {
		return nil, fmt.Errorf("gha-dispatch %s: %w (%w)", r.Harness, err, output.ErrNotStarted)
	}
	fitted, err := r.FitInputs(plan.MaxInputsSize)
	if err != nil {
		return nil, fmt.Errorf("gha-dispatch %s: the workflow_dispatch inputs for %s do not fit the %d characters GitHub accepts; the run was not started: %w (%w)",
			r.Harness, r.Key, MaxInputChars, err, output.ErrNotStarted)
	}
	inputs := map[string]any{}
	for k, v := range fitted {
		inputs[k] = v
	}
	req := gogithub.CreateWorkflowDispatchEventRequest{Ref: ref, Inputs: inputs, ReturnRunDetails: gogithub.Ptr(true)}
	var details *gogithub.WorkflowDispatchRunDetails
	call := func(ctx context.Context) (*gogithub.Response, error) {
		var resp *gogithub.Response
		var err error
		details, resp, err = d.client.Actions.CreateWorkflowDispatchEventByFileName(ctx, owner, repo, wf, req)
		return resp, err
	}
	resp, err := github.Call(ctx, d.policy(false, "dispatch "+wf), call)
	var f *github.Failure
	if errors.As(err, &f) && f.Status == http.StatusUnprocessableEntity && mentionsRunDetails(f.Message) {
		// Older servers reject the parameter; nothing was dispatched.
		d.log.Info("server does not support return_run_details; dispatching without it", "repo", full, "workflow", wf)
		req.ReturnRunDetails = nil
		details = nil
		resp, err = github.Call(ctx, d.policy(false, "dispatch "+wf), call)
	}
	if err != nil {
		return nil, dispatchError(r.Harness, full, wf, ref, err)
	}
	pr, err := confirmed(resp, details)
	if err != nil {
		return nil, fmt.Errorf("gha-dispatch %s: %s: %w", r.Harness, unknownHint(full, wf), err)
	}
	d.log.Info("workflow dispatched", "harness", r.Harness, "repo", full, "workflow", wf, "ref", ref,
		"run_id", pr.ID, "url", pr.URL, "status", resp.StatusCode, "key", string(r.Key))
	d.settleOne(ctx, r, pr)
	return pr, nil
}

// confirmed is the run a successful dispatch answer confirms. GitHub
// confirms a dispatch in one of two ways: 200 with a JSON body naming the
// run (workflow_run_id, with return_run_details), or 204 without a body
// (without return_run_details, or a server that ignores it). Any other
// answer (a proxy's HTML page or "200 {}", a body of another content type,
// another 2xx) is not GitHub's confirmation: the run may or may not exist,
// and the error wraps ErrAmbiguous.
func confirmed(resp *gogithub.Response, details *gogithub.WorkflowDispatchRunDetails) (*plan.Ref, error) {
	pr := &plan.Ref{Driver: Name}
	switch {
	case resp == nil || resp.Response == nil:
		return nil, fmt.Errorf("no answer recorded: %w", ErrAmbiguous)
	case resp.StatusCode == http.StatusNoContent:
		return pr, nil
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GitHub answered %d, not 200 or 204: %w", resp.StatusCode, ErrAmbiguous)
	case !isJSON(resp.Header.Get("Content-Type")):
		return nil, fmt.Errorf("GitHub answered 200 with content type %q, not JSON: %w", resp.Header.Get("Content-Type"), ErrAmbiguous)
	case details == nil || details.GetWorkflowRunID() <= 0:
		return nil, fmt.Errorf("GitHub answered 200 without a workflow_run_id: %w", ErrAmbiguous)
	}
	pr.ID = strconv.FormatInt(details.GetWorkflowRunID(), 10)
	pr.URL = details.GetHTMLURL()
	return pr, nil
}

// isJSON reports whether a Content-Type header names JSON.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// settleOne settles a dispatched run that carries a GitHub change's
// idempotency key (Settle). A failed settle is logged: the run was
// started either way, and the next settle of the key (or the backstop's
// next cycle) sees both runs.
func (d *Driver) settleOne(ctx context.Context, r plan.Run, pr *plan.Ref) {
	id, err := strconv.ParseInt(pr.ID, 10, 64)
	if err != nil || !settles(r) {
		return
	}
	if _, err := d.Settle(ctx, r, id); err != nil {
		d.log.Warn("could not settle the run against other runs of its change", "harness", r.Harness,
			"key", r.WorkItem.IdempotencyKey, "run_id", id, "error", err.Error())
	}
}

// resolveRef applies config > $GITHUB_REF_NAME > default branch; the
// default branch is looked up once per repository.
//
// In a job started by a pull request event GITHUB_REF is
// refs/pull/N/merge and GITHUB_REF_NAME is "N/merge", which is neither a
// branch nor a tag and cannot be dispatched on; that value is skipped
// (also when config copied it into Ref) in favour of the default branch.
func (d *Driver) resolveRef(ctx context.Context, owner, repo, full string) (string, error) {
	envRef := d.opts.Getenv("GITHUB_REF_NAME")
	prRef := envRef != "" && strings.HasPrefix(d.opts.Getenv("GITHUB_REF"), "refs/pull/")
	if d.opts.Ref != "" && !(prRef && d.opts.Ref == envRef) {
		return d.opts.Ref, nil
	}
	if envRef != "" && !prRef {
		return envRef, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.defaults[full]; ok {
		return b, nil
	}
	var rp *gogithub.Repository
	_, err := github.Call(ctx, d.policy(true, "get repository"), func(ctx context.Context) (*gogithub.Response, error) {
		var resp *gogithub.Response
		var err error
		rp, resp, err = d.client.Repositories.Get(ctx, owner, repo)
		return resp, err
	})
	if err != nil {
		var f *github.Failure
		if errors.As(err, &f) && f.Status == http.StatusNotFound {
			return "", fmt.Errorf("repository %s not found (or not visible to the token): check `repo` in config and that the token can read it: %w", full, err)
		}
		if errors.As(err, &f) && f.Status == http.StatusUnauthorized {
			return "", fmt.Errorf("GitHub rejected the token (%w): set GITHUB_TOKEN or GH_TOKEN to a valid token: %w", output.ErrCredentials, err)
		}
		return "", fmt.Errorf("looking up the default branch of %s (set outputs.gha-dispatch.ref or GITHUB_REF_NAME to skip it): %w", full, err)
	}
	b := rp.GetDefaultBranch()
	if b == "" {
		return "", fmt.Errorf("repository %s reports no default branch: set outputs.gha-dispatch.ref", full)
	}
	d.defaults[full] = b
	return b, nil
}
