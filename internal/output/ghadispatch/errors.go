package ghadispatch

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/output"
)

// ErrAmbiguous is wrapped by a dispatch error when the request was sent but
// no answer arrived: the run may have started. Callers must not retry such
// a run automatically.
var ErrAmbiguous = github.ErrAmbiguous

func mentionsRunDetails(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "return_run_details")
}

// unknownHint says what to check after an answer that leaves a dispatch's
// outcome unknown.
func unknownHint(repo, wf string) string {
	return fmt.Sprintf("the dispatch request was sent but the answer was not GitHub's confirmation, so the run MAY have started; "+
		"it was not retried to avoid a double run (a poller asks GitHub once its intent settled): check https://github.com/%s/actions/workflows/%s", repo, wf)
}

// dispatchError turns a failed dispatch into a message that says what to
// fix. The underlying error stays wrapped (errors.Is(err, ErrAmbiguous));
// a definite refusal also wraps output.ErrNotStarted, and an answer with
// a 2xx status whose body could not be read wraps ErrAmbiguous.
func dispatchError(harness, repo, wf, ref string, err error) error {
	var f *github.Failure
	if !errors.As(err, &f) {
		return fmt.Errorf("gha-dispatch %s: dispatching %s in %s on %s: %w", harness, wf, repo, ref, err)
	}
	if f.Status >= 200 && f.Status < 300 {
		return fmt.Errorf("gha-dispatch %s: %s: GitHub answered %d with a body that could not be read: %w: %w", harness, unknownHint(repo, wf), f.Status, err, ErrAmbiguous)
	}
	if f.Refused() {
		err = fmt.Errorf("%w (%w)", err, output.ErrNotStarted)
	}
	msg := strings.ToLower(f.Message)
	var hint string
	switch {
	case f.Class == github.Ambiguous:
		hint = fmt.Sprintf("the dispatch request was sent but no answer arrived, so the run MAY have started; it was not retried to avoid a double run: check https://github.com/%s/actions/workflows/%s before dispatching again", repo, wf)
	case f.Status == http.StatusNotFound:
		hint = fmt.Sprintf("workflow %s not found in %s on ref %s (or the repository is not visible to the token): run `fullsend workflows generate`, commit .github/workflows/%s to %s, and check the token's repository access", wf, repo, ref, wf, ref)
	case f.Status == http.StatusUnprocessableEntity && strings.Contains(msg, "no ref found"):
		hint = fmt.Sprintf("ref %s does not exist in %s: set outputs.gha-dispatch.ref (or GITHUB_REF_NAME) to an existing branch or tag", ref, repo)
	case f.Status == http.StatusUnprocessableEntity && strings.Contains(msg, "workflow_dispatch"):
		hint = fmt.Sprintf("workflow %s on %s does not accept workflow_dispatch or rejects its inputs: regenerate it with `fullsend workflows generate` and commit it to %s", wf, ref, ref)
	case f.Status == http.StatusUnprocessableEntity && strings.Contains(msg, "input"):
		hint = fmt.Sprintf("workflow %s on %s does not declare the nine fullsend inputs (agent, role, source_repo, event_type, event_payload, normalized_event, serialization_key, work_item, poll_lock) and normalized_entity (not required; runs of entity-source harnesses send it) as workflow_dispatch string inputs: regenerate it with `fullsend workflows generate` and commit it to %s", wf, ref, ref)
	case f.Status == http.StatusUnprocessableEntity:
		hint = fmt.Sprintf("GitHub rejected the dispatch of %s on %s: check that the ref exists and that the workflow declares the nine fullsend inputs (`fullsend workflows check`)", wf, ref)
	case f.Status == http.StatusUnauthorized:
		return fmt.Errorf("gha-dispatch %s: GitHub rejected the token (%w): set GITHUB_TOKEN or GH_TOKEN to a valid token: %w", harness, output.ErrCredentials, err)
	case f.Status == http.StatusForbidden && f.Class == github.Permanent:
		hint = fmt.Sprintf("the token may not dispatch workflows in %s: it needs the actions: write permission", repo)
	case f.Class == github.Retryable && f.Status == 0:
		hint = "could not connect to GitHub, so the run was not started: check GITHUB_API_URL and the network"
	case f.Class == github.Retryable:
		hint = "GitHub kept answering with server errors or rate limits; a server error can follow a dispatch GitHub acted on, so a poller asks GitHub before dispatching again"
	default:
		hint = fmt.Sprintf("dispatching %s in %s on %s failed", wf, repo, ref)
	}
	return fmt.Errorf("gha-dispatch %s: %s: %w", harness, hint, err)
}
