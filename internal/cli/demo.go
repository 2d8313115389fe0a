package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/demo"
)

// maxDemoPollers bounds --pollers: each poller is a goroutine polling the
// embedded emulators, so a huge count only exhausts memory.
const maxDemoPollers = 64

// demoOptions are the flags of `fullsend demo`.
type demoOptions struct {
	keep    bool
	pollers int
}

func newDemoCmd(app *App, runF func(context.Context, *demoOptions) error) *cobra.Command {
	cmd, o := command(&cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on embedded Jira, GitHub and GitLab emulators, with checks",
		Long: `Starts the Jira, GitHub and GitLab emulators on loopback, seeds a small
project and a temporary .fullsend/, then plays a short story while
concurrent pollers run: a developer asks for triage, an outsider is denied,
a burst of comments is coalesced, a label triggers a harness, one harness
runs through the local executor, GitLab webhooks start a pipeline once
however often they are delivered (an outsider's and a forged one start
none), and ` + "`fullsend status`" + ` reads what the pollers left. Exits 0 only if
every check held.`,
		Example: `  fullsend demo
  fullsend demo --keep    # then use the emulators: the exports are printed at the end`,
		Args: noArgs,
	}, runF, app.runDemo)
	cmd.Flags().BoolVar(&o.keep, "keep", false, "leave the emulators running after the story, until interrupted")
	cmd.Flags().IntVar(&o.pollers, "pollers", 3, "concurrent pollers")
	return cmd
}

func (app *App) runDemo(ctx context.Context, o *demoOptions) error {
	if o.pollers < 1 || o.pollers > maxDemoPollers {
		return UserError(fmt.Errorf("--pollers %d: want 1 to %d", o.pollers, maxDemoPollers))
	}
	_, err := demo.Run(ctx, demo.Options{Out: app.Stdout, Exec: inProcess, Pollers: o.pollers, Keep: o.keep})
	return err
}

// inProcess runs a fullsend command line in this process with its own
// streams and environment; used by the demo so every step is a real command.
func inProcess(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int {
	sub := &App{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr, Getenv: func(k string) string { return env[k] }}
	return Run(ctx, sub, args)
}
