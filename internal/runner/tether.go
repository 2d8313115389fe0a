package runner

import (
	"io"
	"os"

	"github.com/fullsend-dev/fullsend/internal/procgroup/tether"
)

// startTether starts the agent's tether (package tether: the agent's
// process group dies with this process, even by SIGKILL) when p.Tether
// names the binary; it holds fullsend's own standard output and error
// open until the agent's end. A tether that cannot start is logged and
// the run goes on, its agent not tied to it, as without one.
func (p Process) startTether() *tether.Tether {
	if p.Tether == "" {
		return nil
	}
	t, err := tether.Start(p.Tether, osFile(p.Stdout), osFile(p.Stderr))
	if err != nil {
		p.log().Warn("could not start the agent's tether; a SIGKILL of fullsend would leave the agent running", "error", err.Error())
		return nil
	}
	return t
}

// hold names the started agent's group (pgid) to the tether.
func (p Process) hold(t *tether.Tether, pgid int) {
	if err := t.Hold(pgid); err != nil {
		p.log().Warn("the agent's tether is gone; a SIGKILL of fullsend would leave the agent running", "error", err.Error())
	}
}

// osFile is w when it is an open file, else nil.
func osFile(w io.Writer) *os.File {
	f, _ := w.(*os.File)
	return f
}
