package controller_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/controller"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// savingInput is a fakeInput that counts its state saves.
type savingInput struct {
	*fakeInput
	saves int
}

func (in *savingInput) SaveState() { in.saves++ }

func (in *savingInput) InputCapabilities() poll.InputCapabilities {
	return poll.InputCapabilities{State: in}
}

// TestControllerSavesState: an input that keeps state (poll.StateSaver)
// saves it after its cycle, not in a dry run; the inputs are given the
// --state-dir directory (none for "none").
func TestControllerSavesState(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dryRun   bool
		stateDir string
		want     int
		wantDir  string
	}{
		{"one cycle", false, "/srv/state", 1, "/srv/state"},
		{"dry run", true, "/srv/state", 0, "/srv/state"},
		{"no state", false, "none", 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &savingInput{fakeInput: &fakeInput{d: &fakeDriver{}}}
			var gotDir string
			o := controller.Options{DryRun: tc.dryRun, StateDir: tc.stateDir, Getenv: func(string) string { return "" },
				ConfigDir: testfs.WriteTree(t, map[string]string{
					"config.yaml": strings.Replace(controllerConfig, "%KILL%", "false", 1),
					"a.yaml":      "role: r\ntrigger: 'event.transition.kind == \"comment_added\"'\n",
				})}
			o.Inputs = map[string]poll.InputFactory{"jira-poll": func(_ context.Context, cfg *config.Config, i int, env poll.InputEnv) (poll.Input, error) {
				in.settings = cfg.Poll.InputDrivers[i]
				gotDir = env.State.Path()
				return in, nil
			}}
			o.NewOutput = func(string, *config.Config, output.Env) (output.Driver, error) { return &fakeOut{}, nil }
			c, err := controller.New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if in.saves != tc.want || gotDir != tc.wantDir {
				t.Fatalf("%d saves in directory %q, want %d in %q", in.saves, gotDir, tc.want, tc.wantDir)
			}
		})
	}
}

// TestControllerTellsInputsTheEntitySystems: the inputs learn which
// systems an enabled harness evaluates entities of, so that a fresh
// (one-shot) process reads what its entity stage needs from its first
// cycle.
func TestControllerTellsInputsTheEntitySystems(t *testing.T) {
	for _, tc := range []struct {
		name, harness string
		jira, github  bool
	}{
		{"event-only", "role: r\ntrigger: 'event.transition.kind == \"comment_added\"'\n", false, false},
		{"jira entities", "role: r\nentity: {sources: [jira]}\ntrigger: '\"x\" in entity.state.labels'\n", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got func(string) bool
			o := controller.Options{StateDir: "none", Getenv: func(string) string { return "" },
				ConfigDir: testfs.WriteTree(t, map[string]string{
					"config.yaml": strings.Replace(controllerConfig, "%KILL%", "false", 1),
					"a.yaml":      tc.harness,
				})}
			o.Inputs = map[string]poll.InputFactory{"jira-poll": func(_ context.Context, cfg *config.Config, i int, env poll.InputEnv) (poll.Input, error) {
				got = env.Entities
				in := &fakeInput{d: &fakeDriver{}}
				in.settings = cfg.Poll.InputDrivers[i]
				return in, nil
			}}
			o.NewOutput = func(string, *config.Config, output.Env) (output.Driver, error) { return &fakeOut{}, nil }
			if _, err := controller.New(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("the inputs were not told the entity systems")
			}
			if got("jira") != tc.jira || got("github") != tc.github {
				t.Fatalf("jira %v, github %v; want %v, %v", got("jira"), got("github"), tc.jira, tc.github)
			}
		})
	}
}

// releasingInput is a savingInput that counts its state releases.
type releasingInput struct {
	savingInput
	releases int
}

func (in *releasingInput) ReleaseState() { in.releases++ }

func (in *releasingInput) InputCapabilities() poll.InputCapabilities {
	return poll.InputCapabilities{State: in, Release: in}
}

// TestPollReleasesState: Poll gives back the inputs' claims on their
// state files when it is done (poll.StateReleaser), after the save, so
// that a later controller in the same process comes back as the poller
// the state names.
func TestPollReleasesState(t *testing.T) {
	in := &releasingInput{savingInput: savingInput{fakeInput: &fakeInput{d: &fakeDriver{}}}}
	o := controller.Options{StateDir: "none", Getenv: func(string) string { return "" },
		ConfigDir: testfs.WriteTree(t, map[string]string{
			"config.yaml": strings.Replace(controllerConfig, "%KILL%", "false", 1),
			"a.yaml":      "role: r\ntrigger: 'event.transition.kind == \"comment_added\"'\n",
		})}
	o.Inputs = map[string]poll.InputFactory{"jira-poll": func(_ context.Context, cfg *config.Config, i int, env poll.InputEnv) (poll.Input, error) {
		in.settings = cfg.Poll.InputDrivers[i]
		return in, nil
	}}
	o.NewOutput = func(string, *config.Config, output.Env) (output.Driver, error) { return &fakeOut{}, nil }
	if err := controller.Poll(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if in.saves != 1 || in.releases != 1 {
		t.Fatalf("%d saves, %d releases; want 1 and 1", in.saves, in.releases)
	}
}
