package ghactions

import (
	"os/exec"
	"path/filepath"

	"github.com/fullsend-dev/fullsend/internal/workflows"
)

// runBinary runs the fullsend installed in dir.
func runBinary(dir string) (string, error) {
	out, err := exec.Command(filepath.Join(dir, "fullsend")).CombinedOutput()
	return string(out), err
}

// agentRun is the generated "Run the agent" step's run: text.
var agentRun = "run: |\n" + workflows.Indent(10, workflows.AgentScript("")) + "\n"
