package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/procgroup/tether"
)

// newTetherCmd builds `fullsend internal-tether`, hidden: the process
// `fullsend run` starts beside its agent so that the agent's group dies
// with the run (package tether). It reads its standard input, which must
// be the run's pipe; it takes no flags and prints nothing.
func newTetherCmd(app *App, runF func(context.Context) error) *cobra.Command {
	if runF == nil {
		runF = func(context.Context) error { return tether.Main(app.Stdin) }
	}
	return &cobra.Command{
		Use:    tether.Command,
		Short:  "Kill an agent's process group when its fullsend run dies (started by fullsend run)",
		Hidden: true,
		Args:   noArgs,
		RunE:   func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context()) },
	}
}
