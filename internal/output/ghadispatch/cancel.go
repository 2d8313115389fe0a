package ghadispatch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Cancel cancels the workflow run ref points at. A run that already
// completed is not an error (the outcome says so). The repository is
// Options.Repo, else the owner/repo in ref.URL
// (https://host/{owner}/{repo}/actions/runs/{id}).
func (d *Driver) Cancel(ctx context.Context, ref plan.Ref) (string, error) {
	if ref.Driver != "" && ref.Driver != Name {
		return "", fmt.Errorf("gha-dispatch: cannot cancel a %s run (%s)", ref.Driver, ref.ID)
	}
	if ref.ID == "" {
		where := "its workflow's run list"
		if ref.URL != "" {
			where = ref.URL
		}
		return "", fmt.Errorf("gha-dispatch: the run has no id (the server did not return run details), so it cannot be cancelled automatically: cancel it by hand in %s", where)
	}
	id, err := strconv.ParseInt(ref.ID, 10, 64)
	if err != nil || id < 1 {
		return "", fmt.Errorf("gha-dispatch: run id %q is not a positive integer", ref.ID)
	}
	full := d.opts.Repo
	if full == "" {
		full = repoFromRunURL(ref.URL)
	}
	owner, repo, err := github.SplitRepo(full)
	if err != nil {
		return "", fmt.Errorf("gha-dispatch: cancel run %d: no repository known (set `repo` in config): %v", id, err)
	}
	_, err = github.Call(ctx, d.policy(true, "cancel run"), func(ctx context.Context) (*gogithub.Response, error) {
		return d.client.Actions.CancelWorkflowRunByID(ctx, owner, repo, id)
	})
	var f *github.Failure
	switch {
	case err == nil:
		d.log.Info("workflow run cancelled", "repo", full, "run_id", id, "url", ref.URL)
		return fmt.Sprintf("cancelled run %d in %s%s", id, full, urlSuffix(ref.URL)), nil
	case errors.As(err, &f) && f.Status == http.StatusConflict:
		return fmt.Sprintf("run %d in %s had already completed; nothing to cancel%s", id, full, urlSuffix(ref.URL)), nil
	case errors.As(err, &f) && f.Status == http.StatusNotFound:
		return "", fmt.Errorf("gha-dispatch: cancel run %d: not found in %s (deleted, or the token cannot see it): %w", id, full, err)
	case errors.As(err, &f) && f.Status == http.StatusForbidden && f.Class == github.Permanent:
		return "", fmt.Errorf("gha-dispatch: cancel run %d in %s: the token needs the actions: write permission: %w", id, full, err)
	default:
		return "", fmt.Errorf("gha-dispatch: cancel run %d in %s: %w", id, full, err)
	}
}

func urlSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " (" + u + ")"
}

// repoFromRunURL extracts owner/repo from a run's html_url; "" when the
// URL does not have the expected shape.
func repoFromRunURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := 0; i+3 < len(parts); i++ {
		if parts[i+2] == "actions" && parts[i+3] == "runs" && i+4 < len(parts) && parts[i] != "" && parts[i+1] != "" {
			return parts[i] + "/" + parts[i+1]
		}
	}
	return ""
}
