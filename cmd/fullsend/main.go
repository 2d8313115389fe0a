// Command fullsend turns activity on work items into serialized, coalesced
// agent runs. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/fullsend-dev/fullsend/internal/cli"
)

func main() {
	ctx, stop := notifyContext()
	app := &cli.App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		IsTerminal: isTerminal(os.Stderr), StdinIsTerminal: isTerminal(os.Stdin), Executable: executable()}
	code := cli.Run(ctx, app, os.Args[1:])
	stop()
	os.Exit(code)
}

// notifyContext returns a context that the first SIGINT or SIGTERM
// cancels with a cli.Signal cause (the exit code becomes 128+signal,
// docs/cli.md). After that first signal the default action is restored
// (unless a command listens itself, as `fullsend run` does to forward
// signals to the agent): a second one ends a graceful shutdown at once.
func notifyContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(cli.Signal{Signal: s})
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(ch)
		cancel(nil)
	}
}

// executable is this binary's path; "" when it cannot be found (the run
// then starts its agent without a tether, and says so).
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
