package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A runtime error exits 1 whatever its text says, even words cobra uses in
// its usage errors; cobra's own usage errors exit 2.
func TestRunExitCodesDoNotDependOnMessageText(t *testing.T) {
	fail := &cobra.Command{Use: "fail-at-runtime", RunE: func(*cobra.Command, []string) error {
		return errors.New("jira search: 60 issues to reconcile, Jira accepts at most 50; received 400 unknown command")
	}}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"fail-at-runtime"}, 1},
		{[]string{"frobnicate"}, 2},
		{[]string{"event", "validate"}, 2},
		{[]string{"event", "validate", "a", "b"}, 2},
		{[]string{"validate", "extra"}, 2},
		{[]string{"validate", "--frobnicate"}, 2},
	} {
		var out, errs bytes.Buffer
		app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs, Getenv: func(string) string { return "" }}
		root := newRoot(app, append(commandList(app), fail)...)
		if code := execute(context.Background(), app, root, c.args); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, errs.String())
		}
	}
}

// TestExtraArgumentsAreNamed: a command without positional arguments says
// so and names the extra word; one with subcommands says the word is not
// one of them. Both are exit 2.
func TestExtraArgumentsAreNamed(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"validate", "extra-arg"}, `validate accepts no arguments (got "extra-arg"); see fullsend validate --help`},
		{[]string{"status", "a", "b"}, `status accepts no arguments (got "a b")`},
		{[]string{"poll", "seed", "x"}, `poll seed accepts no arguments (got "x")`},
		{[]string{"version", "x"}, `version accepts no arguments`},
		{[]string{"dispatch", "x"}, `dispatch accepts no arguments`},
		{[]string{"poll", "x"}, `unknown command "x" for "fullsend poll"`},
		{[]string{"workflows", "x"}, `unknown command "x" for "fullsend workflows"`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, "", nil, tc.args...)
			if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, tc.want)
			}
		})
	}
}
