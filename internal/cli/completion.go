package cli

import (
	"fmt"
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
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// completeHarness makes the shell offer the agents registered in the
// configuration directory for cmd's flag called name; when the
// configuration cannot be read it offers nothing.
func completeHarness(app *App, cmd *cobra.Command, name string) {
	_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
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
		return names, cobra.ShellCompDirectiveNoFileComp
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
	if s := suggestFlag(cmd, name); s != "" {
		return UserError(fmt.Errorf("%w\n\nDid you mean this?\n\t--%s", err, s))
	}
	return UserError(err)
}

// suggestFlag returns the flag of cmd closest to name: one that name is a
// prefix of, or one within cobra's suggestion distance (2 edits).
func suggestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", 3
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := levenshtein(name, f.Name)
		if strings.HasPrefix(f.Name, name) {
			d = 0
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
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
