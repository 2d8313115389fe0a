package config

import (
	"fmt"
	"log/slog"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/jira"
)

// JiraOptions returns the client options of a jira-poll entry of the
// configuration: its connection (credentials read from the variables it
// names; an empty e-mail means Bearer auth) and rate limit. A missing
// base URL or token is Invalid. Everything that talks to the
// entry's Jira site (`fullsend poll`, `fullsend run`, entity resolution)
// connects with it.
func JiraOptions(id InputDriver, getenv func(string) string, log *slog.Logger) (jira.Options, error) {
	conn := id.Connection
	if err := conn.CheckConnection(); err != nil {
		return jira.Options{}, Invalid(err)
	}
	token := getenv(conn.TokenEnv)
	if token == "" {
		return jira.Options{}, Invalid(fmt.Errorf("%s: $%s is empty: it must hold the Jira API token (connection.token_env)", drivername.JiraPoll, conn.TokenEnv))
	}
	return jira.Options{BaseURL: conn.BaseURL, Email: getenv(conn.EmailEnv), Token: token,
		RPS: id.RateLimit.RPS, Burst: id.RateLimit.Burst, Logger: log,
		Timeout: conn.Timeout, RetryBudget: conn.RetryBudget, MaxRetries: conn.MaxRetries}, nil
}
