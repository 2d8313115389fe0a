package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// validateOptions are the flags of `fullsend validate`.
type validateOptions struct {
	format string
}

// newValidateCmd builds `fullsend validate`: it checks config.yaml and
// every registered harness file (disabled ones too) and compiles every
// trigger, like a compiler. Problems go to stderr as file:line:col lines
// (config.yaml first, then each harness file in agents order) and the
// exit code is 2; otherwise a one-line summary goes to stdout. An agent
// program that cannot be found is a warning (exit 0): CI may install it
// later.
func newValidateCmd(app *App, runF func(context.Context, *validateOptions) error) *cobra.Command {
	cmd, o := command(&cobra.Command{
		Use:   "validate",
		Short: "Check config.yaml, every harness file and every trigger; report problems as file:line:col",
		Example: `  fullsend validate
  fullsend validate --config-dir examples/.fullsend
  fullsend validate -o json | jq '.problems'`,
		Args: noArgs,
	}, runF, app.runValidate)
	addOutputFlag(cmd, &o.format)
	return cmd
}

// validateResult is what `fullsend validate -o json` prints.
type validateResult struct {
	ConfigDir string          `json:"config_dir"`
	OK        bool            `json:"ok"`
	Agents    int             `json:"agents"`
	Triggers  int             `json:"triggers"`
	Problems  []problemResult `json:"problems"`
	Warnings  []problemResult `json:"warnings"`
}

// problemResult is one problem or warning with its position.
type problemResult struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
}

func problemResults(ps strictyaml.Errors) []problemResult {
	out := make([]problemResult, 0, len(ps))
	for _, p := range ps {
		out = append(out, problemResult{File: p.File, Line: p.Line, Col: p.Col, Message: p.Msg})
	}
	return out
}

func (app *App) runValidate(_ context.Context, o *validateOptions) error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	_, hs, probs := harness.Check(app.ConfigDir, app.Getenv)
	warns := append(commandWarnings(hs, app.ConfigDir, app.Getenv), harness.Warnings(hs)...)
	triggers := 0
	for _, h := range hs {
		if h.Trigger != nil {
			triggers++
		}
	}
	if o.format == formatJSON {
		res := validateResult{ConfigDir: app.ConfigDir, OK: len(probs) == 0, Agents: len(hs), Triggers: triggers,
			Problems: problemResults(probs), Warnings: problemResults(warns)}
		if err := app.printJSON(res); err != nil {
			return err
		}
	} else {
		for _, p := range append(probs, warns...) {
			fmt.Fprintln(app.Stderr, p.String())
		}
	}
	if len(probs) > 0 {
		return UserError(fmt.Errorf("validate: %s in %s", english.Count(len(probs), "problem"), app.ConfigDir))
	}
	if o.format == formatText {
		suffix := ""
		if len(warns) > 0 {
			suffix = ", " + english.Count(len(warns), "warning")
		}
		fmt.Fprintf(app.Stdout, "ok: %s, %s compiled%s\n", english.Count(len(hs), "agent"), english.Count(triggers, "trigger"), suffix)
	}
	return nil
}
