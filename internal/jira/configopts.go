package jira

import (
	"fmt"
	"log/slog"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
)

// OptionsFor returns the client options of a jira-poll entry of the
// configuration: its connection (credentials read from the variables it
// names; an empty e-mail means Bearer auth) and rate limit. A missing
// base URL or token is config.Invalid. Everything that talks to the
// entry's Jira site (`fullsend poll`, `fullsend run`, entity resolution)
// connects with it.
func OptionsFor(id config.InputDriver, getenv func(string) string, log *slog.Logger) (Options, error) {
	conn := id.Connection
	if err := conn.CheckConnection(); err != nil {
		return Options{}, config.Invalid(err)
	}
	token := getenv(conn.TokenEnv)
	if token == "" {
		return Options{}, config.Invalid(fmt.Errorf("%s: $%s is empty: it must hold the Jira API token (connection.token_env)", drivername.JiraPoll, conn.TokenEnv))
	}
	return Options{BaseURL: conn.BaseURL, Email: getenv(conn.EmailEnv), Token: token,
		RPS: id.RateLimit.RPS, Burst: id.RateLimit.Burst, Logger: log,
		Timeout: conn.Timeout, RetryBudget: conn.RetryBudget, MaxRetries: conn.MaxRetries}, nil
}
