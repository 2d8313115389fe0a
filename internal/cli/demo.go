package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/demo"
)

func init() { register(newDemoCmd) }

// maxDemoPollers bounds --pollers: each poller is a goroutine polling the
// embedded emulators, so a huge count only exhausts memory.
const maxDemoPollers = 64

func newDemoCmd(app *App) *cobra.Command {
	var keep bool
	var pollers int
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline on embedded Jira and GitHub emulators, with checks",
		Long: `Starts the Jira and GitHub emulators on loopback, seeds a small project and
a temporary .fullsend/, then plays a short story while concurrent pollers
run: a developer asks for triage, an outsider is denied, a burst of
comments is coalesced, a label triggers a harness, and one harness runs
through the local executor. Exits 0 only if every check held.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pollers < 1 || pollers > maxDemoPollers {
				return UserError(fmt.Errorf("--pollers %d: want 1 to %d", pollers, maxDemoPollers))
			}
			_, err := demo.Run(cmd.Context(), demo.Options{Out: app.Stdout, Exec: inProcess, Pollers: pollers, Keep: keep})
			return err
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "leave the emulators running after the story, until interrupted")
	cmd.Flags().IntVar(&pollers, "pollers", 3, "concurrent pollers")
	return cmd
}

// inProcess runs a fullsend command line in this process with its own
// streams and environment; used by the demo so every step is a real command.
func inProcess(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int {
	sub := &App{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr, Getenv: func(k string) string { return env[k] }}
	return Run(ctx, sub, args)
}
