package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/drivername"
)

// complete runs cobra's hidden __complete command and returns the offered
// values and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	code, out, errs := runCLI(t, "", nil, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func TestFlagValueCompletion(t *testing.T) {
	examples := filepath.Join("..", "..", "examples", ".fullsend")
	noFiles := ":4" // cobra.ShellCompDirectiveNoFileComp
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"dispatch", "--output-driver", ""}, "json gha-matrix gha-dispatch gitlab-pipeline local"},
		{[]string{"dispatch", "--output-driver", "gha-"}, "gha-matrix gha-dispatch"},
		{[]string{"dispatch", "--input-driver", ""}, "json gha-event gitlab-event"},
		{[]string{"poll", "--input-driver", ""}, "jira-poll gitlab-poll github-poll"},
		{[]string{"poll", "seed", "--input-driver", ""}, "jira-poll gitlab-poll github-poll"},
		{[]string{"poll", "--output-driver", ""}, "json gha-matrix gha-dispatch gitlab-pipeline local"},
		{[]string{"poll", "cancel", "--output-driver", "gi"}, "gitlab-pipeline"},
		{[]string{"workflows", "generate", "--platform", ""}, "github gitlab"},
		{[]string{"validate", "--log-level", ""}, "debug info warn error"},
		{[]string{"demo", "--log-format", ""}, "text json"},
		{[]string{"validate", "-o", ""}, "text json"},
		{[]string{"poll", "seed", "--output", "j"}, "json"},
		{[]string{"poll", "cancel", "-o", ""}, "text json"},
		{[]string{"--config-dir", examples, "run", "--harness", ""}, "triage label"},
		{[]string{"run", "--config-dir", examples, "--harness", "l"}, "label"},
		{[]string{"--config-dir", filepath.Join(t.TempDir(), "missing"), "run", "--harness", ""}, ""},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got, directive := complete(t, tc.args...)
			if strings.Join(got, " ") != tc.want || directive != noFiles {
				t.Errorf("offered %q (%s), want %q (%s)", got, directive, tc.want, noFiles)
			}
		})
	}
}

func TestEveryCommandHasExamples(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		// The shell subcommands of completion explain themselves in Long.
		shell := c.HasParent() && c.Parent().Name() == "completion"
		if !c.Hidden && c.Name() != "help" && !shell && c.Example == "" {
			t.Errorf("%q has no Examples", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(&App{}))
	code, out, _ := runCLI(t, "", nil, "dispatch", "--help")
	if code != 0 || !strings.Contains(out, "Examples:\n  fullsend dispatch --input-file events/triage-comment.json") {
		t.Errorf("dispatch --help: exit %d:\n%s", code, out)
	}
}

func TestUnknownFlagSuggestion(t *testing.T) {
	cases := []struct {
		args []string
		want string // "" = no suggestion
	}{
		{[]string{"dispatch", "--input"}, "--input-driver\n\t--input-file"},
		{[]string{"dispatch", "--output-drivr", "json"}, "--output-driver"},
		{[]string{"poll", "--dryrun"}, "--dry-run"},
		{[]string{"validate", "--config-di", "x"}, "--config-dir"},
		{[]string{"validate", "--zzzzzz"}, ""},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errs := runCLI(t, "", nil, tc.args...)
			if code != ExitUsage || !strings.Contains(errs, "unknown flag: "+tc.args[1]) {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			hint := "Did you mean this?\n\t" + tc.want + "\n"
			if tc.want == "" {
				if strings.Contains(errs, "Did you mean") {
					t.Errorf("unexpected suggestion: %q", errs)
				}
			} else if !strings.HasSuffix(errs, hint) {
				t.Errorf("stderr %q, want it to end with %q", errs, hint)
			}
		})
	}
}

// TestHelpListsRegisteredDrivers: every --input-driver and --output-driver
// help names each driver the registry has for that command, so that a
// new driver cannot be missing from --help.
func TestHelpListsRegisteredDrivers(t *testing.T) {
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for flag, names := range map[string][]string{"input-driver": drivername.PollInputNames(), "output-driver": drivername.OutputNames()} {
			if flag == "input-driver" && c.Name() == "dispatch" {
				names = drivername.DispatchInputNames()
			}
			f := c.LocalFlags().Lookup(flag)
			if f == nil {
				continue
			}
			checked++
			for _, n := range names {
				if !strings.Contains(f.Usage, n) {
					t.Errorf("%s --%s help %q does not name %s", c.CommandPath(), flag, f.Usage, n)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(&App{}))
	if checked < 5 {
		t.Errorf("checked %d driver flags; want dispatch, poll, poll cancel and status", checked)
	}
	code, out, _ := runCLI(t, "", nil, "demo", "--help")
	for _, system := range []string{"Jira", "GitHub", "GitLab"} {
		if code != 0 || !strings.Contains(out, system) {
			t.Errorf("demo --help does not mention %s:\n%s", system, out)
		}
	}
}
