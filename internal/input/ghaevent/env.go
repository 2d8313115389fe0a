package ghaevent

import (
	"errors"

	"github.com/fullsend-dev/fullsend/internal/github"
)

// ErrNoToken: gha-event needs a token to look up the actor's role.
var ErrNoToken = errors.New("gha-event: no GitHub token: set GITHUB_TOKEN or GH_TOKEN to a token that can read " +
	"the repository's collaborator permissions (fine-grained: Metadata read-only; classic: repo, or public_repo " +
	"for a public repository; a workflow's GITHUB_TOKEN has it)")

// NewFromEnv completes o from a GitHub Actions environment and builds the
// driver: Path and EventName default to $GITHUB_EVENT_PATH and
// $GITHUB_EVENT_NAME, Repo to $GITHUB_REPOSITORY, and when Permissions and
// Pulls are unset they are looked up over GITHUB_API_URL with GITHUB_TOKEN
// or GH_TOKEN. Without a token it fails (ErrNoToken): every actor's role
// would be none and every event would be silently dropped.
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
		env := github.EnvOf(getenv)
		if env.Token == "" {
			if _, err := New(o); err != nil {
				return nil, err // what the payload lacks comes first
			}
			return nil, ErrNoToken
		}
		c, err := github.NewClient(env.APIURL, env.Token, github.ClientOptions{})
		if err != nil {
			return nil, err
		}
		lk := NewLookup(c)
		o.Permissions, o.Pulls = lk, lk
	}
	return New(o)
}
