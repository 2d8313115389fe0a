// Package tether ties an agent's process group to the life of the
// `fullsend run` that started it (docs/runner.md, "Timeouts and
// signals"): when that process dies without a chance to end its agent
// (SIGKILL, the OOM killer), the group dies with it, so the scope's next
// run never works beside an agent of a run that is gone.
//
// The tether is a small process of its own (the fullsend binary,
// `fullsend internal-tether`), started by the run before its agent, in a
// process group of its own and with an empty environment. Its standard
// input is a socket the run alone holds the other end of: the tether
// answers "ready" once it is deaf to signals; "hold PGID" names the
// agent's group once it started, "release" says the run ended it
// itself. When the socket reaches its end without a release (the run
// died: the kernel closed its end), the tether kills the group it holds
// with SIGKILL and exits. It keeps the run's standard output and
// error open until then, so that whoever waits for the run's output to
// end (the local executor, a CI runner) also waits for the agent's end.
package tether

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// Command is the fullsend command that plays the tether.
const Command = "internal-tether"

// Tether is the run's side of a started tether. Its methods are safe on a
// nil *Tether (no tether: nothing is held).
type Tether struct {
	mu   sync.Mutex
	w    *os.File
	cmd  *exec.Cmd
	done bool
}

// readyLine is what the tether writes on its descriptor 3 once ready.
const readyLine = "ready\n"

// Main is the tether process (`fullsend internal-tether`): deaf to
// signals, it tells its run it is ready (on its standard input, a socket
// when Start started it) and serves that input (Serve), killing with
// SIGKILL.
func Main(stdin io.Reader) error {
	IgnoreSignals()
	if w, ok := stdin.(io.Writer); ok {
		if _, err := io.WriteString(w, readyLine); err != nil {
			return fmt.Errorf("tether: %w", err)
		}
	}
	_, err := Serve(stdin, KillGroup)
	return err
}

// Hold names the agent's process group to the tether.
func (t *Tether) Hold(pgid int) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return errors.New("tether: released")
	}
	_, err := fmt.Fprintf(t.w, "hold %d\n", pgid)
	return err
}

// Release tells the tether the run ended its agent itself, and waits for
// it to exit.
func (t *Tether) Release() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	_, _ = io.WriteString(t.w, "release\n")
	_ = t.w.Close()
	_ = t.cmd.Wait()
}

// Serve is the tether process: it reads the run's lines from r until
// their end and then, unless the run released it, kills the group it
// holds with kill. It returns what it did, for its exit code and tests.
func Serve(r io.Reader, kill func(pgid int) error) (killed int, err error) {
	held := 0
	sc := bufio.NewScanner(io.LimitReader(r, 1<<16))
	for sc.Scan() {
		word, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch word {
		case "hold":
			n, err := strconv.Atoi(arg)
			// Never 0 or 1, nor a negative number: kill(-1) would signal
			// every process the tether may signal.
			if err != nil || n < 2 {
				return 0, fmt.Errorf("tether: bad group %q", arg)
			}
			held = n
		case "release":
			return 0, nil
		}
	}
	if held == 0 {
		return 0, nil
	}
	return held, kill(held)
}
