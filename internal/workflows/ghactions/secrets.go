package ghactions

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
)

// secretName is what GitHub accepts as a secret name (letters, digits and
// underscores, not starting with a digit), which is also an environment
// variable name; names starting with GITHUB_ are GitHub's own.
var secretName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// SecretsFor lists the repository secrets the fullsend steps need under
// configuration c, besides the workflow's own GITHUB_TOKEN: for every
// jira-poll input its connection's email_env and token_env, and
// JIRA_BASE_URL when config.yaml sets no base_url. A configuration
// without a jira-poll input needs none. c must be loaded without an
// environment (config.Load(dir, nil)), so that a base URL the file leaves
// out is not filled in from this machine's $JIRA_BASE_URL.
func SecretsFor(c *config.Config) []string {
	var out []string
	add := func(name string) {
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, in := range c.Poll.InputDrivers {
		if in.Type != drivername.JiraPoll {
			continue
		}
		if in.Connection.BaseURL == "" {
			add("JIRA_BASE_URL")
		}
		add(in.Connection.EmailEnv)
		add(in.Connection.TokenEnv)
	}
	return out
}

// checkSecrets refuses a secret name GitHub would not accept or that
// could not be pasted into the workflow as is.
func checkSecrets(names []string) error {
	for _, n := range names {
		switch {
		case !secretName.MatchString(n):
			return fmt.Errorf("secret %q: want letters, digits and _, not starting with a digit", n)
		case strings.HasPrefix(strings.ToUpper(n), "GITHUB_"):
			return fmt.Errorf("secret %q: names starting with GITHUB_ are reserved by GitHub; "+
				"name the variable otherwise in config.yaml (email_env, token_env)", n)
		}
	}
	return nil
}
