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
