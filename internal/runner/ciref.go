package runner

import (
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/plan"
)

// CIRun identifies the CI run executing this `fullsend run`, as recorded in
// the poll lock's `runs`:
//
//   - GitHub Actions: driver gha-dispatch, id $GITHUB_RUN_ID, url
//     $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID;
//   - GitLab CI: driver gitlab-pipeline, id $CI_PIPELINE_ID, url $CI_PIPELINE_URL;
//   - otherwise: driver local, id local-<pid>.
//
// The driver names match the output drivers that start such runs, so the
// entry the poller recorded at dispatch is updated rather than duplicated.
func CIRun(getenv func(string) string, pid int) plan.Ref {
	if id := strings.TrimSpace(getenv("GITHUB_RUN_ID")); id != "" {
		ref := plan.Ref{Driver: "gha-dispatch", ID: id}
		server, repo := strings.TrimRight(getenv("GITHUB_SERVER_URL"), "/"), getenv("GITHUB_REPOSITORY")
		if server == "" {
			server = "https://github.com"
		}
		if repo != "" {
			ref.URL = server + "/" + repo + "/actions/runs/" + id
		}
		return ref
	}
	if id := strings.TrimSpace(getenv("CI_PIPELINE_ID")); id != "" {
		return plan.Ref{Driver: "gitlab-pipeline", ID: id, URL: getenv("CI_PIPELINE_URL")}
	}
	return plan.Ref{Driver: "local", ID: "local-" + strconv.Itoa(pid)}
}
