package runner

import (
	"io"
	"os"
)

// agentOutput is what the agent writes its output to, for w (the run's
// own stdout or stderr). A terminal, a regular file or nothing (nil:
// /dev/null) is handed to the agent as it is. A pipe (the local
// executor's, which prefixes each run's lines in the poller; a CI
// runner's) or any other writer is copied by this process and write
// errors are dropped: when the reader goes away (a poller killed with
// SIGKILL) the agent keeps running and its output is discarded, instead
// of the agent dying of SIGPIPE at its next line. `fullsend run` itself
// survives the same broken pipe (cli: SIGPIPE is caught) and releases
// its poll lock when the agent ends.
func agentOutput(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeNamedPipe == 0 {
			return f
		}
	}
	return dropErrors{w}
}

// dropErrors writes to w and reports every write as complete.
type dropErrors struct{ w io.Writer }

func (d dropErrors) Write(p []byte) (int, error) {
	_, _ = d.w.Write(p)
	return len(p), nil
}
