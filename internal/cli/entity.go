package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/entity"
)

// newEntityCmd builds `fullsend entity`, the parent of commands that work
// on NormalizedEntity documents.
func newEntityCmd(app *App, runF func(context.Context, string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "entity",
		Short:   "Work with NormalizedEntity v1 documents",
		Example: `  fullsend entity validate entities/proj-123.json`,
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newEntityValidateCmd(app, runF))
	return cmd
}

var entityDoc = docContract{noun: "entity", title: "NormalizedEntity", read: func(r io.Reader) error {
	_, err := entity.Read(r, entity.DefaultMaxBytes)
	return err
}}

// newEntityValidateCmd builds `fullsend entity validate FILE|-`: it checks
// one entity file (or standard input) against NormalizedEntity v1 and
// prints "FILE: valid", or one "FILE: /json/path: message" line per
// problem on stderr and exits 2.
func newEntityValidateCmd(app *App, runF func(ctx context.Context, file string) error) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, file string) error { return validateDocFile(ctx, app, file, entityDoc) }
	}
	return &cobra.Command{
		Use:   "validate FILE|-",
		Short: "Check a NormalizedEntity v1 JSON document (- reads standard input)",
		Example: `  fullsend entity validate entities/proj-123.json
  fullsend entity validate - < entities/pr-12.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return UserError(fmt.Errorf("entity validate: want one FILE, or - for standard input (got %s)", english.Count(len(args), "argument")))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), args[0]) },
	}
}
