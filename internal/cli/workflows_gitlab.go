package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fullsend-dev/fullsend/internal/workflows"
	"github.com/fullsend-dev/fullsend/internal/workflows/gitlabci"
)

// gitlabCheck is the outcome of checking the GitLab CI configuration.
type gitlabCheck struct {
	files, jobs int
	findings    []workflows.Finding
	skipped     []workflows.Skipped
}

// checkGitLabCI checks .gitlab-ci.yml in dir, else in the current
// directory (the repository root); no such file is not an error.
func checkGitLabCI(dir string) (gitlabCheck, error) {
	for _, d := range []string{dir, "."} {
		p := filepath.Join(d, gitlabci.FileName)
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return gitlabCheck{}, UserError(fmt.Errorf("read %s: %w", p, err))
		}
		rep, err := gitlabci.Inspect(p, data)
		if err != nil {
			return gitlabCheck{}, UserError(err)
		}
		gl := gitlabCheck{files: 1, jobs: rep.AgentJobs + rep.DispatchJobs, findings: rep.Findings}
		if gl.jobs == 0 && len(gl.findings) == 0 {
			gl.files, gl.skipped = 0, []workflows.Skipped{{File: p, Reason: gitlabci.NoFullsendJob}}
		}
		return gl, nil
	}
	return gitlabCheck{}, nil
}
