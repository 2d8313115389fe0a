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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	app := &cli.App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, IsTerminal: isTerminal(os.Stderr)}
	code := cli.Run(ctx, app, os.Args[1:])
	stop()
	os.Exit(code)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
