package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/version"
)

// versionOptions are the flags of `fullsend version`.
type versionOptions struct{ format string }

// newVersionCmd builds `fullsend version`: the module version, commit,
// build date and Go version of this binary, as text or (-o json) as one
// JSON object for scripts.
func newVersionCmd(app *App, runF func(*versionOptions) error) *cobra.Command {
	o := &versionOptions{}
	if runF == nil {
		runF = func(o *versionOptions) error {
			if err := checkFormat(o.format); err != nil {
				return err
			}
			return writeVersion(app.Stdout, o.format, version.Get())
		}
	}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print fullsend's version, commit, build date and Go version",
		Example: `  fullsend version
  fullsend version -o json | jq -r .version`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return runF(o) },
	}
	addOutputFlag(cmd, &o.format)
	return cmd
}

// addVersionFlag gives root a --version flag printing what `fullsend
// version` prints.
func addVersionFlag(root *cobra.Command) {
	in := version.Get()
	root.Version = in.Version
	// The text is a quoted constant, so nothing in it is read as a template.
	root.SetVersionTemplate(fmt.Sprintf("{{%q}}", versionText(in)))
}

// writeVersion writes in to w in format (text or json).
func writeVersion(w io.Writer, format string, in version.Info) error {
	if format == formatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(in)
	}
	_, err := io.WriteString(w, versionText(in))
	return err
}

// versionText renders in as a few "key: value" lines.
func versionText(in version.Info) string {
	commit, date := in.Commit, in.Date
	if commit == "" {
		commit = "unknown"
	}
	if in.Modified {
		commit += " (modified)"
	}
	if date == "" {
		date = "unknown"
	}
	return fmt.Sprintf("fullsend %s\ncommit: %s\ndate:   %s\ngo:     %s\n", in.Version, commit, date, in.GoVersion)
}
