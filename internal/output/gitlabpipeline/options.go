package gitlabpipeline

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/httpx"
	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// Process-mode settings for Options.ProcessMode.
const (
	ProcessModeNewestFirst = "newest_first"
	ProcessModeLeave       = "leave" // never change a resource group's process mode
)

// Options configure a Driver.
type Options struct {
	APIURL  string // GitLab API base, e.g. https://gitlab.com/api/v4 (the /api/v4 suffix is optional)
	Token   string // GITLAB_TOKEN: a project access token with the api scope
	Project string // numeric id or path, nested groups allowed: group/sub/project
	Ref     string // branch the pipelines run on
	Log     *slog.Logger

	// The HTTP settings, as in internal/gitlab.Options (defaults there):
	// retries (only of requests safe to repeat), backoff, the longest
	// Retry-After honoured, per-request timeout, body cap, rate limiter.
	MaxRetries                                      int
	RetryBase, RetryMax, MaxRetryAfter, RetryBudget time.Duration
	Timeout                                         time.Duration
	MaxBody                                         int64
	RateLimiter                                     gitlab.RateLimiter
	// ProcessMode is enforced on each scope's resource group after its
	// pipeline is created: newest_first (default) or "leave".
	ProcessMode string
	// Transport overrides the HTTP transport (tests).
	Transport http.RoundTripper
}

// Getenv reads an environment variable.
type Getenv func(string) string

// FromEnv fills the unset connection fields of o from the environment:
// APIURL from GITLAB_API_URL, else CI_API_V4_URL; Token from GITLAB_TOKEN;
// Project from CI_PROJECT_PATH; Ref from CI_DEFAULT_BRANCH. Explicit
// values (flags, config) win.
func FromEnv(o Options, getenv Getenv) Options {
	c := glapi.Options{APIURL: o.APIURL, Token: o.Token}.FromEnv(getenv)
	o.APIURL, o.Token = c.APIURL, c.Token
	if o.Project == "" {
		o.Project = strings.TrimSpace(getenv("CI_PROJECT_PATH"))
	}
	if o.Ref == "" {
		o.Ref = strings.TrimSpace(getenv("CI_DEFAULT_BRANCH"))
	}
	return o
}

// ErrConfig marks a configuration error in Options (the user's input).
var ErrConfig = errors.New("gitlab-pipeline configuration")

func (o *Options) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...))
	}
	if o.APIURL == "" {
		return bad("no API URL: set GITLAB_API_URL (or CI_API_V4_URL inside GitLab CI)")
	}
	u, err := httpx.ParseBaseURL(o.APIURL)
	if err != nil {
		return bad("%v", err)
	}
	if !strings.HasSuffix(u.Path, "/api/v4") {
		u.Path += "/api/v4"
	}
	o.APIURL = u.String()
	if o.Token == "" {
		return bad("no token: set GITLAB_TOKEN")
	}
	o.Project = strings.Trim(strings.TrimSpace(o.Project), "/")
	if o.Project == "" {
		return bad("no project: set outputs.gitlab-pipeline.project (or run inside GitLab CI)")
	}
	if strings.Contains(o.Project, "..") {
		return bad("project %q must not contain '..'", o.Project)
	}
	if o.Ref == "" {
		return bad("no ref: set outputs.gitlab-pipeline.ref")
	}
	switch o.ProcessMode {
	case "":
		o.ProcessMode = ProcessModeNewestFirst
	case ProcessModeNewestFirst, ProcessModeLeave:
	default:
		return bad("process mode %q: want %s or %s", o.ProcessMode, ProcessModeNewestFirst, ProcessModeLeave)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return nil
}
