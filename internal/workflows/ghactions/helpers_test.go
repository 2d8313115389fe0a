package ghactions

import (
	"os/exec"
	"path/filepath"
)

// runBinary runs the fullsend installed in dir.
func runBinary(dir string) (string, error) {
	out, err := exec.Command(filepath.Join(dir, "fullsend")).CombinedOutput()
	return string(out), err
}
