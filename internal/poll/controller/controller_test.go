package controller_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/controller"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// fakeInput is a poll.Input over a fakeDriver.
type fakeInput struct {
	d        *fakeDriver
	drv      poll.Driver // when set, the driver instead of d
	settings config.InputDriver
	account  error
	// accountFn, when set, answers Account instead of account.
	accountFn func() (string, error)
}

func (in *fakeInput) PollDriver() poll.Driver {
	if in.drv != nil {
		return in.drv
	}
	return in.d
}
func (in *fakeInput) Settings() config.InputDriver { return in.settings }
func (in *fakeInput) InputCapabilities() poll.InputCapabilities {
	return poll.InputCapabilities{}
}
func (in *fakeInput) Account(context.Context) (string, error) {
	if in.accountFn != nil {
		return in.accountFn()
	}
	return "bot", in.account
}

const controllerConfig = `version: 1
repo: acme/platform
kill_switch: %KILL%
agents:
  - {name: a, source: a.yaml}
poll:
  input_drivers:
    - type: jira-poll
      connection: {base_url: "https://jira.example"}
      queries: ["project = PROJ"]
      lock: {jitter_min: 1ms, jitter_max: 2ms}
  output_driver: local
`

// newController builds a Controller over a config directory whose one
// jira-poll input is in, with outputs built by newOut.
func newController(t *testing.T, kill string, in *fakeInput, o controller.Options, newOut func() output.Driver) (*controller.Controller, error) {
	t.Helper()
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": strings.Replace(controllerConfig, "%KILL%", kill, 1),
		"a.yaml":      "role: r\ntrigger: 'event.transition.kind == \"comment_added\"'\n",
	})
	o.ConfigDir = dir
	o.Inputs = map[string]poll.InputFactory{"jira-poll": func(_ context.Context, cfg *config.Config, i int, env poll.InputEnv) (poll.Input, error) {
		if env.PollerID == "" {
			t.Error("no poller id")
		}
		in.settings = cfg.Poll.InputDrivers[i]
		return in, nil
	}}
	o.NewOutput = func(name string, _ *config.Config, _ output.Env) (output.Driver, error) { return newOut(), nil }
	return controller.New(context.Background(), o)
}

func TestCheckOptions(t *testing.T) {
	cases := []struct {
		name string
		o    controller.Options
		want string // "" valid
	}{
		{"defaults", controller.Options{}, ""},
		{"watch", controller.Options{Watch: true, Interval: time.Second, MetricsAddr: "127.0.0.1:0"}, ""},
		{"unknown input", controller.Options{InputDriver: "rss-poll"}, `--input-driver "rss-poll": want jira-poll, gitlab-poll, github-poll`},
		{"zero interval", controller.Options{Watch: true}, "--interval 0s: must be positive"},
		{"metrics without watch", controller.Options{MetricsAddr: ":9090"}, "--metrics-addr needs --watch"},
		{"unknown output", controller.Options{OutputDriver: "nope"}, `--output-driver "nope": want one of [json gha-matrix gha-dispatch gitlab-pipeline local]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := controller.CheckOptions(tc.o)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.want || !config.IsInvalid(err) {
				t.Fatalf("err = %v, want the user's error %q", err, tc.want)
			}
		})
	}
}

// The kill switch stops a cycle before anything is locked; without it the
// same cycle locks and dispatches.
func TestControllerKillSwitch(t *testing.T) {
	for _, kill := range []string{"true", "false"} {
		t.Run("kill_switch "+kill, func(t *testing.T) {
			in := &fakeInput{d: &fakeDriver{Items: []*poll.Item{item("PROJ-1", "/run")}}}
			out := &fakeOut{}
			c, err := newController(t, kill, in, controller.Options{}, func() output.Driver { return out })
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			locked := len(in.d.Writes()) > 0
			if locked != (kill == "false") || (len(out.Runs) > 0) != (kill == "false") {
				t.Errorf("writes %v, runs %d", in.d.Writes(), len(out.Runs))
			}
		})
	}
}

// The output is the option, else poll.output_driver; a dry run prints
// json. The lock input is the first jira-poll entry.
func TestControllerChoices(t *testing.T) {
	cases := []struct {
		o    controller.Options
		want string
	}{
		{controller.Options{}, "local"},
		{controller.Options{OutputDriver: "gha-dispatch"}, "gha-dispatch"},
		{controller.Options{OutputDriver: "gha-dispatch", DryRun: true}, "json"},
	}
	for _, tc := range cases {
		in := &fakeInput{d: &fakeDriver{}}
		c, err := newController(t, "false", in, tc.o, func() output.Driver { return &fakeOut{} })
		if err != nil {
			t.Fatal(err)
		}
		if got := c.OutputName(); got != tc.want {
			t.Errorf("%+v: output %q, want %q", tc.o, got, tc.want)
		}
		if c.LockInput() != poll.Input(in) || len(c.Inputs()) != 1 {
			t.Errorf("lock input %v, inputs %v", c.LockInput(), c.Inputs())
		}
	}
}

// Credentials the tracker refuses stop the run before any cycle, with the
// factory's error.
func TestControllerAccountError(t *testing.T) {
	refused := config.Invalid(errors.New("refused the credentials"))
	in := &fakeInput{d: &fakeDriver{Items: []*poll.Item{item("PROJ-1", "/run")}}, account: refused}
	c, err := newController(t, "false", in, controller.Options{}, func() output.Driver { return &fakeOut{} })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); !errors.Is(err, refused) || !config.IsInvalid(err) || len(in.d.Writes()) > 0 {
		t.Fatalf("Run = %v, writes %v", err, in.d.Writes())
	}
}
