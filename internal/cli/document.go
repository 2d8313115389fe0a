package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// The commands over a contract's documents: `fullsend event` and
// `fullsend entity`, each with its `validate FILE|-`.

// docContract is what `… validate FILE|-` needs of a contract.
type docContract struct {
	noun  string // "event": in "event file X: …"
	title string // "NormalizedEvent": in "invalid NormalizedEvent"
	read  func(io.Reader) error
	// examples are two documents of the docs' examples ("events/x.json"),
	// the second read from standard input in the help.
	examples [2]string
}

// The two contracts' documents.
var (
	eventDoc = docContract{noun: "event", title: "NormalizedEvent", read: reads(event.Read, event.DefaultMaxBytes),
		examples: [2]string{"events/label-added.json", "events/triage-comment.json"}}
	entityDoc = docContract{noun: "entity", title: "NormalizedEntity", read: reads(entity.Read, entity.DefaultMaxBytes),
		examples: [2]string{"entities/proj-123.json", "entities/pr-12.json"}}
)

// reads is a docContract's read: a contract's Read with its size limit,
// the document dropped.
func reads[T any](read func(io.Reader, int64) (T, error), limit int64) func(io.Reader) error {
	return func(r io.Reader) error {
		_, err := read(r, limit)
		return err
	}
}

// newEventCmd builds `fullsend event`, the parent of commands that work on
// NormalizedEvent documents.
func newEventCmd(app *App, runF func(context.Context, string) error) *cobra.Command {
	return newDocCmd(app, eventDoc, runF)
}

// newEntityCmd builds `fullsend entity`, the parent of commands that work
// on NormalizedEntity documents.
func newEntityCmd(app *App, runF func(context.Context, string) error) *cobra.Command {
	return newDocCmd(app, entityDoc, runF)
}

// newDocCmd builds `fullsend NOUN`, the parent of commands that work on
// c's documents, and its `validate FILE|-` (newDocValidateCmd).
func newDocCmd(app *App, c docContract, runF func(context.Context, string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     c.noun,
		Short:   "Work with " + c.title + " v1 documents",
		Example: "  fullsend " + c.noun + " validate " + c.examples[0],
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newDocValidateCmd(app, c, runF))
	return cmd
}

// newDocValidateCmd builds `fullsend NOUN validate FILE|-`: it checks one
// document file (or standard input) against c and prints "FILE: valid",
// or one "FILE: /json/path: message" line per problem on stderr and exits
// 2 (validateDocFile, unless runF is given).
func newDocValidateCmd(app *App, c docContract, runF func(ctx context.Context, file string) error) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, file string) error { return validateDocFile(ctx, app, file, c) }
	}
	return &cobra.Command{
		Use:   "validate FILE|-",
		Short: "Check a " + c.title + " v1 JSON document (- reads standard input)",
		Example: "  fullsend " + c.noun + " validate " + c.examples[0] + "\n" +
			"  fullsend " + c.noun + " validate - < " + c.examples[1],
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return UserError(fmt.Errorf("%s validate: want one FILE, or - for standard input (got %s)", c.noun, english.Count(len(args), "argument")))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), args[0]) },
	}
}

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
