package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/textdist"
)

// Shell integration: value completion for enumerated flags and harness
// names, and a "did you mean" hint for unknown flags.

var (
	logLevels  = []string{"debug", "info", "warn", "error"}
	logFormats = []string{formatText, formatJSON}
)

// completeValues makes the shell offer values for cmd's flag called name
// instead of file names.
func completeValues(cmd *cobra.Command, name string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(values, prefix), cobra.ShellCompDirectiveNoFileComp
	})
}

// withPrefix returns the values that start with prefix.
func withPrefix(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// completeHarness makes the shell offer the agents registered in the
// configuration directory for cmd's flag called name; when the
// configuration cannot be read it offers nothing.
func completeHarness(app *App, cmd *cobra.Command, name string) {
	_ = cmd.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		cfg, err := config.Load(app.ConfigDir, app.getenv)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, a := range cfg.Agents {
			if a.IsEnabled() {
				names = append(names, a.Name)
			}
		}
		return withPrefix(names, prefix), cobra.ShellCompDirectiveNoFileComp
	})
}

// getenv is app.Getenv, or no environment when unset.
func (app *App) getenv(k string) string {
	if app.Getenv == nil {
		return ""
	}
	return app.Getenv(k)
}

// registerRootCompletions completes the root's persistent flags and gives
// the root its examples.
func registerRootCompletions(root *cobra.Command) {
	root.Example = `  fullsend validate
  fullsend dispatch --input-file events/triage-comment.json
  fullsend poll --dry-run
  fullsend demo`
	completeValues(root, "log-level", logLevels...)
	completeValues(root, "log-format", logFormats...)
	_ = root.RegisterFlagCompletionFunc("config-dir", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
}

// addCompletionCmd adds cobra's `completion` command now (instead of at
// Execute) to give it examples; call it after the other commands.
func addCompletionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Example = `  source <(fullsend completion bash)       # bash, in this shell
  fullsend completion bash > ~/.local/share/bash-completion/completions/fullsend
  fullsend completion zsh > "${fpath[1]}/_fullsend"
  fullsend completion fish > ~/.config/fish/completions/fullsend.fish`
	}
}

// flagError turns a flag parsing error into a usage error (exit 2), adding
// "did you mean --x?" when an unknown flag is close to one cmd accepts.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return UserError(err)
	}
	if s := suggestFlags(cmd, name); len(s) > 0 {
		return UserError(fmt.Errorf("%w\n\nDid you mean this?\n\t--%s", err, strings.Join(s, "\n\t--")))
	}
	return UserError(err)
}

// suggestFlags returns the flags of cmd close to name, in name order: those
// name is a prefix of, and those within cobra's suggestion distance (2
// edits).
func suggestFlags(cmd *cobra.Command, name string) []string {
	var out []string
	visit := func(f *pflag.Flag) {
		if !f.Hidden && !slices.Contains(out, f.Name) && (strings.HasPrefix(f.Name, name) || textdist.Levenshtein(name, f.Name) <= 2) {
			out = append(out, f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	slices.Sort(out)
	return out
}
