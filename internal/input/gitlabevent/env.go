package gitlabevent

import (
	"errors"
	"fmt"
	"strings"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
)

// Env is the connection a GitLab CI job provides.
type Env struct {
	PayloadPath string // TRIGGER_PAYLOAD: path of the file holding the webhook body
	APIURL      string // GITLAB_API_URL, else CI_API_V4_URL
	Token       string // GITLAB_TOKEN
	Project     string // CI_PROJECT_ID
}

// EnvOf reads Env through getenv.
func EnvOf(getenv func(string) string) Env {
	get := func(names ...string) string {
		for _, n := range names {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return v
			}
		}
		return ""
	}
	return Env{PayloadPath: get("TRIGGER_PAYLOAD"), APIURL: get("GITLAB_API_URL", "CI_API_V4_URL"),
		Token: get("GITLAB_TOKEN"), Project: get("CI_PROJECT_ID")}
}

// NewFromEnv completes o from a GitLab CI environment and builds the
// driver: Path defaults to $TRIGGER_PAYLOAD, Project to $CI_PROJECT_ID, and
// when API is unset a Lookup is built for apiURL (empty: GITLAB_API_URL,
// else CI_API_V4_URL) with GITLAB_TOKEN. Explicit values (flags, config)
// win.
func NewFromEnv(o Options, apiURL string, getenv func(string) string) (*Driver, error) {
	env := EnvOf(getenv)
	if o.Payload == nil && o.Path == "" {
		o.Path = env.PayloadPath
	}
	if o.Project == "" {
		o.Project = env.Project
	}
	if o.API == nil {
		if apiURL == "" {
			apiURL = env.APIURL
		}
		if apiURL == "" {
			return nil, errors.New("gitlab-event: no API URL: set CI_API_V4_URL (inside GitLab CI it is set) or connection.base_url")
		}
		c, err := glapi.NewClient(glapi.Options{APIURL: apiURL, Token: env.Token})
		if errors.Is(err, glapi.ErrNoToken) {
			return nil, fmt.Errorf("gitlab-event: %w (read_api is enough)", err)
		}
		if err != nil {
			return nil, err
		}
		o.API = &Lookup{Client: c}
	}
	return New(o)
}
