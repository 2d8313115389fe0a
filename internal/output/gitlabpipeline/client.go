package gitlabpipeline

import (
	gitlab "gitlab.com/gitlab-org/api/client-go"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
)

// newClient builds the GitLab client of o (internal/gitlab: the shared
// HTTP stack and GitLab's retry policy; writes go with glapi.WriteCtx).
func newClient(o Options) (*gitlab.Client, error) {
	return glapi.NewClient(glapi.Options{
		APIURL: o.APIURL, Token: o.Token, Log: o.Log,
		MaxRetries: o.MaxRetries, RetryBase: o.RetryBase, RetryMax: o.RetryMax,
		MaxRetryAfter: o.MaxRetryAfter, RetryBudget: o.RetryBudget,
		Timeout: o.Timeout, MaxBody: o.MaxBody, RateLimiter: o.RateLimiter, Transport: o.Transport,
	})
}
