package gitlabpoll

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// TokenEnv holds the GitLab token of a gitlab-poll input.
const TokenEnv = "GITLAB_TOKEN"

// Input is a configured gitlab-poll input (poll.Input).
type Input struct {
	*Driver
	forgepoll.Entry // its entry, the token's fingerprint and its reactions
}

// PollDriver implements poll.Input.
func (in *Input) PollDriver() poll.Driver { return in.Driver }

// Account implements poll.Input: the token's own username. A refused
// token is config.Invalid. The answer is remembered in the state
// directory for the same token, so a new process does not ask again.
func (in *Input) Account(ctx context.Context) (string, error) {
	return in.p.account.Get(ctx, in.Credential(), in.readAccount)
}

func (in *Input) readAccount(ctx context.Context) (string, error) {
	u, _, err := in.p.o.Client.Users.CurrentUser(gitlab.WithContext(ctx))
	if err != nil {
		var er *gitlab.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == http.StatusUnauthorized || er.Response.StatusCode == http.StatusForbidden) {
			return "", config.Invalid(fmt.Errorf("%s: GitLab refused $%s: %w", Name, TokenEnv, err))
		}
		return "", fmt.Errorf("%s: reading the tool's own account: %w", Name, err)
	}
	in.AddOwnAccounts(u.Username)
	return u.Username, nil
}

// FromConfig builds the input of cfg.Poll.InputDrivers[index]; it is the
// poll.InputFactory of gitlab-poll. Bad settings are config.Invalid.
func FromConfig(_ context.Context, cfg *config.Config, index int, env poll.InputEnv) (poll.Input, error) {
	id := cfg.Poll.InputDrivers[index]
	if id.Connection.BaseURL == "" {
		return nil, config.Invalid(errors.New("gitlab-poll: no base URL: set connection.base_url in config.yaml, $CI_API_V4_URL or $GITLAB_API_URL"))
	}
	token := env.Getenv(TokenEnv)
	if token == "" {
		return nil, config.Invalid(fmt.Errorf("gitlab-poll: $%s is empty: it must hold a GitLab token (read_api)", TokenEnv))
	}
	project := id.Project
	if project == "" {
		project = cfg.Repo
	}
	in, err := build(id, cfg.Repo, project, token, httpx.DefaultTransport(), env)
	if err != nil {
		return nil, err
	}
	in.AddOwnAccounts(cfg.Authorization.BotAccounts...)
	return in, nil
}

func build(id config.InputDriver, repo, project, token string, tr http.RoundTripper, env poll.InputEnv) (*Input, error) {
	cnt := &httpx.Counter{Next: tr, Rate: glapi.RateLimitOf}
	clock := trackerclock.New(env.Now) // GitLab's clock, from its answers
	gl, err := glapi.NewClient(glapi.Options{APIURL: id.Connection.BaseURL, Token: token, Timeout: id.Connection.Timeout, Transport: clock.Transport(cnt), Log: env.Log})
	if err != nil {
		return nil, config.Invalid(fmt.Errorf("gitlab-poll: %w", err))
	}
	lookback := id.Lookback
	if lookback <= 0 {
		lookback = DefaultLookback
	}
	base := gl.BaseURL().String()
	p, err := New(Options{Client: gl, Project: project, Repo: repo, Lookback: lookback, Grace: id.Grace, Now: clock.Now, Log: env.Log,
		State: env.State.For(Name, base, project, repo, lookback.String())})
	if err != nil {
		return nil, config.Invalid(err)
	}
	usage := func() poll.Usage { return poll.CounterUsage(cnt) }
	return &Input{Driver: NewDriver(p, usage),
		Entry: forgepoll.NewEntry(id, pollstate.Fingerprint(Name, base, token),
			event.SystemGitLab, &feedback.GitLab{Client: gl})}, nil
}

// An input writes its reactions through forgepoll.Entry.
var _ poll.FeedbackInput = (*Input)(nil)
