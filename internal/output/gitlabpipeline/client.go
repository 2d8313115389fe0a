package gitlabpipeline

import (
	gitlab "gitlab.com/gitlab-org/api/client-go"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// newClient builds the GitLab client of o (internal/gitlab: the shared
// HTTP stack and GitLab's retry policy; writes go with glapi.WriteCtx),
// its answers observed by clock (GitLab's).
func newClient(o Options, clock *trackerclock.Clock) (*gitlab.Client, error) {
	tr := o.Transport
	if tr == nil {
		tr = httpx.DefaultTransport()
	}
	return glapi.NewClient(glapi.Options{
		APIURL: o.APIURL, Token: o.Token, Log: o.Log,
		MaxRetries: o.MaxRetries, RetryBase: o.RetryBase, RetryMax: o.RetryMax,
		MaxRetryAfter: o.MaxRetryAfter, RetryBudget: o.RetryBudget,
		Timeout: o.Timeout, MaxBody: o.MaxBody, RateLimiter: o.RateLimiter, Transport: clock.Transport(tr),
	})
}
