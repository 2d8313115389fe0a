package runner

import (
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// LocalRunIDEnv names the variable through which the local output driver
// hands a child `fullsend run` the id of its run (the Ref.ID it returned at
// dispatch).
const LocalRunIDEnv = "FULLSEND_LOCAL_RUN_ID"

// CIRun identifies the CI run executing this `fullsend run`, as recorded in
// the poll lock's `runs`:
//
//   - GitHub Actions: driver gha-dispatch, id $GITHUB_RUN_ID, url
//     $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID;
//   - GitLab CI: driver gitlab-pipeline, id $CI_PIPELINE_ID, url $CI_PIPELINE_URL;
//   - a child of the local output driver: driver local, id
//     $FULLSEND_LOCAL_RUN_ID (the run's sequence number; it wins over the
//     CI variables a poller running inside CI passes down);
//   - otherwise: driver local, id local-<pid>.
//
// The driver names and ids match the references the output drivers return
// at dispatch (gha-dispatch: the workflow run id; gitlab-pipeline: the
// pipeline id; local: the sequence number), so the entry the poller
// recorded is updated rather than duplicated, and removed at release.
func CIRun(getenv func(string) string, pid int) plan.Ref {
	if id := strings.TrimSpace(getenv(LocalRunIDEnv)); id != "" {
		return plan.Ref{Driver: drivername.Local, ID: id}
	}
	if id := strings.TrimSpace(getenv("GITHUB_RUN_ID")); id != "" {
		ref := plan.Ref{Driver: drivername.GHADispatch, ID: id}
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
		return plan.Ref{Driver: drivername.GitLabPipeline, ID: id, URL: getenv("CI_PIPELINE_URL")}
	}
	return plan.Ref{Driver: drivername.Local, ID: "local-" + strconv.Itoa(pid)}
}
