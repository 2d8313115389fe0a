package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionOptions are the flags of `fullsend version`.
type versionOptions struct {
	format string
}

// versionInfo is what `fullsend version -o json` prints.
type versionInfo struct {
	Version  string `json:"version"`  // module version, "(devel)" for a development build
	Revision string `json:"revision"` // VCS commit, when the build recorded one
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

func newVersionCmd(app *App, runF func(context.Context, *versionOptions) error) *cobra.Command {
	o := &versionOptions{}
	if runF == nil {
		runF = app.runVersion
	}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of this binary",
		Example: `  fullsend version
  fullsend version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runF(cmd.Context(), o) },
	}
	addOutputFlag(cmd, &o.format)
	return cmd
}

func readVersion() versionInfo {
	v := versionInfo{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v.Revision = s.Value
			}
		}
	}
	return v
}

func (app *App) runVersion(_ context.Context, o *versionOptions) error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	v := readVersion()
	if o.format == formatJSON {
		return app.printJSON(v)
	}
	rev := ""
	if v.Revision != "" {
		rev = " " + v.Revision
	}
	_, err := fmt.Fprintf(app.Stdout, "fullsend %s%s (%s %s)\n", v.Version, rev, v.Go, v.Platform)
	return err
}
