package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// newEventCmd builds `fullsend event`, the parent of commands that work on
// NormalizedEvent documents.
func newEventCmd(app *App, runF func(context.Context, string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "event",
		Short:   "Work with NormalizedEvent v1 documents",
		Example: `  fullsend event validate events/label-added.json`,
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newEventValidateCmd(app, runF))
	return cmd
}

// newEventValidateCmd builds `fullsend event validate FILE|-`: it checks one
// event file (or standard input) against NormalizedEvent v1 and prints
// "FILE: valid", or one "FILE: /json/path: message" line per problem on
// stderr and exits 2.
func newEventValidateCmd(app *App, runF func(ctx context.Context, file string) error) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, file string) error { return validateEventFile(ctx, app, file) }
	}
	return &cobra.Command{
		Use:   "validate FILE|-",
		Short: "Check a NormalizedEvent v1 JSON document (- reads standard input)",
		Example: `  fullsend event validate events/label-added.json
  fullsend event validate - < events/triage-comment.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return UserError(fmt.Errorf("event validate: want one FILE, or - for standard input (got %s)", english.Count(len(args), "argument")))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), args[0]) },
	}
}

func validateEventFile(ctx context.Context, app *App, arg string) error {
	return validateDocFile(ctx, app, arg, eventDoc)
}

// docContract is what `… validate FILE|-` needs of a contract.
type docContract struct {
	noun  string // "event": in "event file X: …"
	title string // "NormalizedEvent": in "invalid NormalizedEvent"
	read  func(io.Reader) error
}

var eventDoc = docContract{noun: "event", title: "NormalizedEvent", read: func(r io.Reader) error {
	_, err := event.Read(r, event.DefaultMaxBytes)
	return err
}}

// validateDocFile checks the document in file arg (- for standard input)
// against c, printing "NAME: valid" or one "NAME: /path: message" line per
// problem on stderr (a user error, exit 2).
func validateDocFile(ctx context.Context, app *App, arg string, c docContract) error {
	name, r := arg, app.docStdin(ctx, arg == "-", c.noun, c.title, "give a FILE instead of -")
	if arg == "-" {
		name = "<stdin>"
	} else {
		f, err := os.Open(arg)
		if err != nil {
			return UserError(fmt.Errorf("%s file %s: %w", c.noun, arg, eventOpenError(err)))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return UserError(fmt.Errorf("%s file %s: is a directory", c.noun, arg))
		}
		r = f
	}
	if r == nil {
		r = eventEOFReader{}
	}
	err := c.read(r)
	var verr *event.ValidationError
	switch {
	case err == nil:
		_, werr := fmt.Fprintf(app.Stdout, "%s: valid\n", name)
		return werr
	case errors.As(err, &verr):
		for _, p := range verr.Problems {
			fmt.Fprintf(app.Stderr, "%s: %s\n", name, p)
		}
		if verr.Omitted > 0 {
			fmt.Fprintf(app.Stderr, "%s: … and %d more %s\n", name, verr.Omitted, english.Noun(verr.Omitted, "problem"))
		}
		n := len(verr.Problems) + verr.Omitted
		return UserError(fmt.Errorf("%s: invalid %s (%s)", name, c.title, english.Count(n, "problem")))
	default:
		return UserError(fmt.Errorf("%s file %s: %w", c.noun, name, err))
	}
}

// eventOpenError drops the path os.Open repeats, keeping the reason.
func eventOpenError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

type eventEOFReader struct{}

func (eventEOFReader) Read([]byte) (int, error) { return 0, io.EOF }
