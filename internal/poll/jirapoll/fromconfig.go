package jirapoll

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// Input is a configured jira-poll input driver: the Driver (its Seed,
// Cancel and RefreshLocks included), its Jira client and its
// configuration entry. It implements poll.Input.
type Input struct {
	*Driver
	client   *jira.Client
	settings config.InputDriver
	bearer   bool   // no e-mail: the token is sent as a Bearer token
	state    *State // the state file (state.go)
}

// PollDriver implements poll.Input.
func (in *Input) PollDriver() poll.Driver { return in.Driver }

// Settings implements poll.Input.
func (in *Input) Settings() config.InputDriver { return in.settings }

var _ poll.FeedbackInput = (*Input)(nil)

// Feedback implements poll.FeedbackInput: comments on the issues, through
// the poller's own Jira client (its pacing and call counts).
func (in *Input) Feedback() (string, feedback.Writer) {
	return event.SystemJira, &feedback.Jira{Client: in.client}
}

// SiteURL is the Jira site the input polls.
func (in *Input) SiteURL() string { return in.settings.Connection.BaseURL }

// Account implements poll.Input: the account id of the configured
// credentials (/myself, unless the state directory holds it for these
// credentials or cursor.account_id is set). Credentials Jira refuses are
// config.Invalid.
func (in *Input) Account(ctx context.Context) (string, error) {
	me, err := in.client.Myself(ctx)
	if err != nil {
		if jira.IsAuth(err) {
			return "", config.Invalid(fmt.Errorf("%s: %s refused the credentials (%s): %w",
				Name, in.settings.Connection.BaseURL, in.credentials(), err))
		}
		return "", fmt.Errorf("%s: reading the tool's own account: %w", Name, err)
	}
	return me.AccountID, nil
}

// credentials names the variables whose values Jira refused: the e-mail
// and token for Basic auth, the token alone in Bearer mode (no e-mail).
func (in *Input) credentials() string {
	c := in.settings.Connection
	if in.bearer {
		return fmt.Sprintf("$%s, sent as a Bearer token since $%s is empty", c.TokenEnv, c.EmailEnv)
	}
	return fmt.Sprintf("$%s/$%s", c.EmailEnv, c.TokenEnv)
}

// FromConfig builds the input of cfg.Poll.InputDrivers[index]; it is the
// poll.InputFactory of jira-poll. Bad settings are config.Invalid.
func FromConfig(_ context.Context, cfg *config.Config, index int, env poll.InputEnv) (poll.Input, error) {
	id := cfg.Poll.InputDrivers[index]
	if err := id.Connection.CheckConnection(); err != nil {
		return nil, config.Invalid(err)
	}
	if len(id.Queries) == 0 {
		return nil, config.Invalid(errors.New("jira-poll: no queries configured"))
	}
	opts, err := config.JiraOptions(id, env.Getenv, env.Log)
	if err != nil {
		return nil, err
	}
	opts.OnRequest = env.OnRequest
	clock := trackerclock.New(env.Now) // Jira's clock, from its answers
	opts.Clock = clock
	client, err := jira.New(opts)
	if err != nil {
		return nil, config.Invalid(err)
	}
	drv, err := New(Options{
		API: client, Usage: UsageOf(client),
		SiteURL: id.Connection.BaseURL, Repo: cfg.Repo, Project: id.Project, Queries: id.Queries,
		M: id.Lock.M, N: id.Lock.N, StaleThreshold: id.Lock.StaleThreshold, PendingTTL: id.Lock.PendingTTL, Concurrency: id.Concurrency,
		PollerID: env.PollerID, Log: env.Log, Now: clock.Now, ClockKnown: clock.Known, BotAccounts: cfg.Authorization.BotAccounts,
		Entities:  env.Entities != nil && env.Entities(entity.SystemJira),
		CursorAPI: client, CursorMode: id.Cursor.Store, CursorAccount: id.Cursor.AccountID, CursorMargin: id.Cursor.Margin,
	})
	if err != nil {
		return nil, config.Invalid(err)
	}
	store := env.State.For(Name, id.Connection.BaseURL, id.Project, strings.Join(id.Queries, "\n"))
	st := LoadState(store, client, pollstate.Fingerprint(Name, id.Connection.BaseURL, opts.Email, opts.Token), id.Cursor.AccountID)
	st.Attach(drv)
	return &Input{Driver: drv, client: client, settings: id, bearer: opts.Email == "", state: st}, nil
}

// UsageOf reports client's cumulative usage and its last rate-limit budget
// (the driver's Options.Usage).
func UsageOf(client *jira.Client) func() poll.Usage {
	return func() poll.Usage {
		b := client.Budget()
		return poll.Usage{Calls: client.CallsTotal(), RateLimitWaits: client.RateLimitWaits(),
			RateBudget: poll.RateBudget{Known: b.Known, Limit: b.Limit, Remaining: b.Remaining, Reset: b.Reset}}
	}
}
