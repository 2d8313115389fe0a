package ghaevent

import (
	"github.com/fullsend-dev/fullsend/internal/github"
)

// NewFromEnv completes o from a GitHub Actions environment and builds the
// driver: Path and EventName default to $GITHUB_EVENT_PATH and
// $GITHUB_EVENT_NAME, Repo to $GITHUB_REPOSITORY, and when Permissions and
// Pulls are unset and a token is available (GITHUB_TOKEN or GH_TOKEN) they
// are looked up over GITHUB_API_URL. Without a token every actor's role is
// none (logged), and comments on pull requests describe the pull request
// as a fork.
func NewFromEnv(o Options, getenv func(string) string) (*Driver, error) {
	path, name := EnvSource(getenv)
	if o.Payload == nil && o.Path == "" {
		o.Path = path
	}
	if o.EventName == "" {
		o.EventName = name
	}
	if o.Repo == "" {
		o.Repo = getenv("GITHUB_REPOSITORY")
	}
	if o.Permissions == nil && o.Pulls == nil {
		if env := github.EnvOf(getenv); env.Token != "" {
			c, err := github.NewClient(env.APIURL, env.Token, github.ClientOptions{})
			if err != nil {
				return nil, err
			}
			lk := NewLookup(c)
			o.Permissions, o.Pulls = lk, lk
		}
	}
	return New(o)
}
