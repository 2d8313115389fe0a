package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fullsend-dev/fullsend/internal/config"
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

// registerRootCompletions completes the root's persistent flags.
func registerRootCompletions(root *cobra.Command) {
	completeValues(root, "log-level", logLevels...)
	completeValues(root, "log-format", logFormats...)
	_ = root.RegisterFlagCompletionFunc("config-dir", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
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
		if !f.Hidden && !slices.Contains(out, f.Name) && (strings.HasPrefix(f.Name, name) || levenshtein(name, f.Name) <= 2) {
			out = append(out, f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	slices.Sort(out)
	return out
}

// levenshtein is the edit distance between a and b.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
