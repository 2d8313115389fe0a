package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/feedback"
	"github.com/fullsend-dev/fullsend/internal/harness"
)

// workflowFeedback reports whether the configuration in dir writes
// feedback reactions (feedback.Wanted), so that the generated GitHub
// workflows grant the write permissions they need. Without a
// config.yaml the harness defaults apply: feedback is on. Harness files
// that do not load are `validate`'s to report; those that load decide.
func workflowFeedback(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, config.FileName)); errors.Is(err, fs.ErrNotExist) {
		return true
	}
	_, hs, _ := harness.Check(dir, nil)
	return feedback.Wanted(hs)
}
