package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/harness"
)

// newValidateCmd builds `fullsend validate`: it checks config.yaml and
// every registered harness file (disabled ones too) and compiles every
// trigger, like a compiler. Problems go to stderr as file:line:col lines
// (config.yaml first, then each harness file in agents order) and the
// exit code is 2; otherwise a one-line summary goes to stdout.
func newValidateCmd(app *App, runF func(context.Context) error) *cobra.Command {
	if runF == nil {
		runF = app.runValidate
	}
	return &cobra.Command{
		Use:   "validate",
		Short: "Check config.yaml, every harness file and every trigger; report problems as file:line:col",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context()) },
	}
}

func (app *App) runValidate(context.Context) error {
	_, hs, probs := harness.Check(app.ConfigDir, app.Getenv)
	if len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintln(app.Stderr, p.String())
		}
		return UserError(fmt.Errorf("validate: %d problem(s) in %s", len(probs), app.ConfigDir))
	}
	triggers := 0
	for _, h := range hs {
		if h.Trigger != nil {
			triggers++
		}
	}
	fmt.Fprintf(app.Stdout, "ok: %d agents, %d triggers compiled\n", len(hs), triggers)
	return nil
}
