package cli

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/runner"
)

// parse runs args against a root holding cmd, whose runF captured the
// options, and returns the exit code and stderr.
func parse(t *testing.T, app *App, cmd *cobra.Command, args ...string) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	app.Stdin, app.Stdout, app.Stderr = strings.NewReader(""), &bytes.Buffer{}, &errb
	if app.Getenv == nil {
		app.Getenv = func(string) string { return "" }
	}
	return execute(context.Background(), app, newRoot(app, cmd), args), errb.String()
}

// capture returns a runF that stores the options it is given.
func capture[T any](got **T) func(context.Context, *T) error {
	return func(_ context.Context, o *T) error {
		c := *o
		*got = &c
		return nil
	}
}

func TestPollFlags(t *testing.T) {
	cases := []struct {
		args []string
		want pollOptions
	}{
		{[]string{"poll"}, pollOptions{interval: time.Minute}},
		{[]string{"poll", "--dry-run", "--output-driver", "local", "--input-driver", "jira-poll"},
			pollOptions{dryRun: true, outputDriver: "local", inputDriver: "jira-poll", interval: time.Minute}},
		{[]string{"poll", "--watch", "--interval", "5s", "--metrics-addr", "127.0.0.1:0"},
			pollOptions{watch: true, interval: 5 * time.Second, intervalSet: true, metricsAddr: "127.0.0.1:0"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got *pollOptions
			app := &App{}
			if code, errs := parse(t, app, newPollCmd(app, &pollRunners{poll: capture(&got)}), tc.args...); code != 0 || got == nil {
				t.Fatalf("exit %d, options %v: %s", code, got, errs)
			}
			if *got != tc.want {
				t.Errorf("options %+v, want %+v", *got, tc.want)
			}
		})
	}
}

func TestPollSubcommandFlags(t *testing.T) {
	var seed *pollSeedOptions
	var cancel *pollCancelOptions
	app := &App{}
	cmd := newPollCmd(app, &pollRunners{seed: capture(&seed), cancel: capture(&cancel)})
	if code, errs := parse(t, app, cmd, "poll", "seed", "--input-driver", "jira-poll"); code != 0 || seed == nil || seed.inputDriver != "jira-poll" {
		t.Fatalf("seed: exit %d, options %+v: %s", code, seed, errs)
	}
	app = &App{}
	cmd = newPollCmd(app, &pollRunners{seed: capture(&seed), cancel: capture(&cancel)})
	code, errs := parse(t, app, cmd, "poll", "cancel", "--issue", "PROJ-7", "--output-driver", "gha-dispatch", "--input-driver", "jira-poll")
	if code != 0 || cancel == nil {
		t.Fatalf("cancel: exit %d: %s", code, errs)
	}
	if cancel.issue != "PROJ-7" || cancel.outputDriver != "gha-dispatch" || cancel.inputDriver != "jira-poll" {
		t.Errorf("cancel options %+v (parent %+v)", cancel, cancel.pollOptions)
	}
}

func TestDispatchFlags(t *testing.T) {
	var got *dispatchOptions
	app := &App{}
	code, errs := parse(t, app, newDispatchCmd(app, capture(&got)), "--config-dir", "cfg", "dispatch",
		"--input-driver", "gha-event", "--input-file", "ev.json", "--event-name", "issues", "--repo", "o/r")
	want := dispatchOptions{inputDriver: "gha-event", inputFile: "ev.json", eventName: "issues", outputDriver: "json", repo: "o/r"}
	if code != 0 || got == nil || *got != want {
		t.Fatalf("exit %d, options %+v, want %+v: %s", code, got, want, errs)
	}
	if app.ConfigDir != "cfg" {
		t.Errorf("--config-dir = %q", app.ConfigDir)
	}
}

func TestRunFlags(t *testing.T) {
	cases := []struct {
		args []string
		want runOptions
		code int
	}{
		{[]string{"run", "--harness", "h", "--event-file", "-", "--poll-lock", "", "--", "agent", "--x"},
			runOptions{flags: runner.Flags{Harness: "h", EventFile: "-", PollLockSet: true}, command: []string{"agent", "--x"}}, 0},
		{[]string{"run", "--refresh-only"}, runOptions{refreshOnly: true, command: []string{}}, 0},
		{[]string{"run", "stray"}, runOptions{}, ExitUsage},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got *runOptions
			app := &App{}
			code, errs := parse(t, app, newRunCmd(app, capture(&got)), tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errs)
			}
			if tc.code != 0 {
				if got != nil {
					t.Errorf("runF called with %+v", got)
				}
				return
			}
			if got == nil || !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("options %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDemoAndSimFlags(t *testing.T) {
	var demo *demoOptions
	app := &App{}
	if code, errs := parse(t, app, newDemoCmd(app, capture(&demo)), "demo", "--keep", "--pollers", "5"); code != 0 || demo == nil || *demo != (demoOptions{keep: true, pollers: 5}) {
		t.Fatalf("demo: exit %d, options %+v: %s", code, demo, errs)
	}
	var sim *simFlags
	app = &App{}
	code, errs := parse(t, app, newSimCmd(app, capture(&sim)), "sim", "--addr", "127.0.0.1:9000", "--jira", "--jira-search-lag", "2s")
	if code != 0 || sim == nil {
		t.Fatalf("sim: exit %d: %s", code, errs)
	}
	if sim.addr != "127.0.0.1:9000" || sim.searchLag != 2*time.Second || !*sim.selected["jira"] || *sim.selected["gitlab"] {
		t.Errorf("sim options %+v", sim)
	}
}

func TestValidateAndEventArgs(t *testing.T) {
	called := false
	app := &App{}
	if code, errs := parse(t, app, newValidateCmd(app, func(context.Context, *validateOptions) error { called = true; return nil }), "--config-dir", "c", "validate"); code != 0 || !called || app.ConfigDir != "c" {
		t.Fatalf("validate: exit %d, called %v, config dir %q: %s", code, called, app.ConfigDir, errs)
	}
	var file string
	app = &App{}
	record := func(_ context.Context, f string) error { file = f; return nil }
	if code, errs := parse(t, app, newEventCmd(app, record), "event", "validate", "-"); code != 0 || file != "-" {
		t.Fatalf("event validate: exit %d, file %q: %s", code, file, errs)
	}
	file = ""
	if code, _ := parse(t, app, newEventCmd(app, record), "event", "validate", "a", "b"); code != ExitUsage || file != "" {
		t.Errorf("two files: exit %d, runF called with %q", code, file)
	}
}
