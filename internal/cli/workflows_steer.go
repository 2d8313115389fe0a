package cli

import "github.com/fullsend-dev/fullsend/internal/harness"

// workflowSteer reports whether an enabled harness of the configuration
// in dir steers a running agent (steer.enabled, docs/steering.md), so
// that the generated GitHub run job gets the permissions a run that
// steers needs, and a GitLab agent job without a token is warned about.
// Harness files that do not load are `validate`'s to report.
func workflowSteer(dir string) bool {
	_, hs, _ := harness.Check(dir, nil)
	for _, h := range hs {
		if h.Enabled && h.Steer.Enabled {
			return true
		}
	}
	return false
}

// steerWithoutAgentToken is the warning of a GitLab generation whose
// agent job gets no GITLAB_TOKEN while a harness steers.
const steerWithoutAgentToken = "a harness steers (steer.enabled) but the agent job gets no GITLAB_TOKEN, so its runs " +
	"steer nothing on GitLab; generate with --gitlab-agent-token and give that token scope api (docs/steering.md)"
