package githubpoll

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// ActionsBot is the account of a workflow's built-in GITHUB_TOKEN, which
// cannot read its own user (GET /user answers 403).
const ActionsBot = github.ActionsBot

// Input is a configured github-poll input (poll.Input).
type Input struct {
	*Driver
	forgepoll.Entry // its entry, the token's fingerprint and its reactions
}

// PollDriver implements poll.Input.
func (in *Input) PollDriver() poll.Driver { return in.Driver }

// Account implements poll.Input: the token's own login (GET /user), or
// ActionsBot for a token that has no user (an installation token). A
// refused token is config.Invalid. The answer is remembered in the state
// directory for the same token (for any installation token), so a new
// process does not ask again.
func (in *Input) Account(ctx context.Context) (string, error) {
	id, err := in.p.account.Get(ctx, in.Credential(), in.readAccount)
	if err != nil {
		return "", err
	}
	in.AddOwnAccounts(id)
	return id, nil
}

// readAccount asks GitHub for the token's own account (github.Self).
func (in *Input) readAccount(ctx context.Context) (string, error) {
	login, err := github.Self(ctx, in.p.o.Client, in.p.policy)
	switch {
	case errors.Is(err, github.ErrTokenRefused):
		return "", config.Invalid(fmt.Errorf("%s: GitHub refused the token in $GITHUB_TOKEN/$GH_TOKEN: %w", Name, err))
	case err != nil:
		return "", fmt.Errorf("%s: reading the tool's own account: %w", Name, err)
	}
	return login, nil
}

// FromConfig builds the input of cfg.Poll.InputDrivers[index]; it is the
// poll.InputFactory of github-poll. The API base is connection.base_url
// (config.Load defaults it to $GITHUB_API_URL), else api.github.com; the
// token is $GITHUB_TOKEN or $GH_TOKEN; the repository is config `repo`
// ($GITHUB_REPOSITORY). Bad settings are config.Invalid.
func FromConfig(_ context.Context, cfg *config.Config, index int, env poll.InputEnv) (poll.Input, error) {
	id := cfg.Poll.InputDrivers[index]
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	ge := github.EnvOf(getenv)
	if id.Connection.BaseURL == "" {
		id.Connection.BaseURL = ge.APIURL
	}
	if ge.Token == "" {
		return nil, config.Invalid(fmt.Errorf("%s: $GITHUB_TOKEN and $GH_TOKEN are empty: one must hold a GitHub token (issues: read, pull-requests: read, actions: write, metadata: read)", Name))
	}
	in, err := build(id, cfg.Repo, cfg.Outputs.GHADispatch.Workflow, ge.Token, httpx.DefaultTransport(), env)
	if err != nil {
		return nil, err
	}
	in.AddOwnAccounts(cfg.Authorization.BotAccounts...)
	return in, nil
}

func build(id config.InputDriver, repo, workflow, token string, tr http.RoundTripper, env poll.InputEnv) (*Input, error) {
	if repo == "" {
		return nil, config.Invalid(fmt.Errorf("%s: no repository: set `repo` in config.yaml or $GITHUB_REPOSITORY", Name))
	}
	cnt := &httpx.Counter{Next: tr, Rate: github.RateLimitOf}
	timeout := id.Connection.Timeout
	if timeout <= 0 {
		timeout = github.DefaultTimeout
	}
	clock := trackerclock.New(env.Now) // GitHub's clock, from its answers
	hc := httpx.NewClient(httpx.Options{Transport: cnt, Timeout: timeout, MaxBody: github.MaxResponseBytes, Clock: clock})
	gh, err := github.NewClient(id.Connection.BaseURL, token, github.ClientOptions{HTTPClient: hc})
	if err != nil {
		return nil, config.Invalid(fmt.Errorf("%s: connection.base_url: %w", Name, err))
	}
	base := gh.BaseURL()
	if workflow == "" {
		workflow = ghadispatch.DefaultWorkflow
	}
	lookback := id.Lookback
	if lookback <= 0 {
		lookback = DefaultLookback
	}
	p, err := New(Options{Client: gh, Repo: repo, Workflow: workflow, Lookback: lookback, Grace: id.Grace,
		Now: clock.Now, Log: env.Log, State: env.State.For(Name, base, repo, workflow, lookback.String())})
	if err != nil {
		return nil, config.Invalid(err)
	}
	usage := func() poll.Usage { return poll.CounterUsage(cnt) }
	return &Input{Driver: NewDriver(p, usage),
		Entry: forgepoll.NewEntry(id, credential(base, token), event.SystemGitHub, &feedback.GitHub{Client: gh})}, nil
}

// An input writes its reactions through forgepoll.Entry.
var _ poll.FeedbackInput = (*Input)(nil)

// credential is the fingerprint the tool's own account is remembered
// under. Every installation token (ghs_, a workflow's GITHUB_TOKEN among
// them) has the same answer, the Actions bot, so one fingerprint stands
// for all of them; any other token is its own.
func credential(base, token string) string {
	if strings.HasPrefix(token, "ghs_") {
		return pollstate.Fingerprint(Name, base, "installation token")
	}
	return pollstate.Fingerprint(Name, base, token)
}

// refused marks GitHub's refusal of the token (401) as poll.ErrAuth, so
// that the cycle stops and the command exits as for bad credentials.
func refused(err error) error {
	var f *github.Failure
	if errors.As(err, &f) && f.Status == http.StatusUnauthorized {
		return fmt.Errorf("%w: GitHub refused the token in $GITHUB_TOKEN/$GH_TOKEN: %w", poll.ErrAuth, err)
	}
	return err
}
