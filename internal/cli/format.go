package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
)

// Result formats of -o/--output, for commands that print a result.
const (
	formatText = "text"
	formatJSON = "json"
)

var resultFormats = []string{formatText, formatJSON}

// addOutputFlag registers -o/--output (text or json) on cmd, with value
// completion.
func addOutputFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVarP(p, "output", "o", formatText, "result format: text or json")
	completeValues(cmd, "output", resultFormats...)
}

// checkFormat rejects an -o value other than text or json (exit 2).
func checkFormat(f string) error {
	if f != formatText && f != formatJSON {
		return UserError(fmt.Errorf("--output %q: want text or json", f))
	}
	return nil
}

// printJSON writes v to stdout as indented JSON and a newline.
func (app *App) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(app.Stdout, "%s\n", b)
	return err
}
