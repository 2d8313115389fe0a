package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/jirakey"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/poll/controller"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
)

// `fullsend poll seed` and `fullsend poll cancel`.

// pollSeedOptions are the flags of `fullsend poll seed`.
type pollSeedOptions struct {
	*pollOptions // the parent's --input-driver
	format       string
}

// pollCancelOptions are the flags of `fullsend poll cancel`.
type pollCancelOptions struct {
	*pollOptions // the parent's --input-driver
	issue        string
	outputDriver string
	format       string
}

func newPollSeedCmd(app *App, parent *pollOptions, runF func(context.Context, *pollSeedOptions) error) *cobra.Command {
	cmd, o := command(&cobra.Command{
		Use:   "seed",
		Short: "Mark every issue the queries match as handled so far (first deployment)",
		Long: `Writes lastCheck on every issue the configured queries match that has
none, set to the issue's last update, so that the first cycles against an
existing backlog dispatch only changes made from now on. Issues that
already carry a lastCheck are left alone.`,
		Example: `  fullsend poll seed
  fullsend poll seed -o json`,
		Args: noArgs,
	}, runF, app.runPollSeed)
	o.pollOptions = parent
	addOutputFlag(cmd, &o.format)
	return cmd
}

// adminController builds the controller of the poll subcommands: the
// configured inputs, no output.
func (app *App) adminController(ctx context.Context, o *pollOptions) (*controller.Controller, error) {
	return controller.New(ctx, app.controllerOptions(&pollOptions{inputDriver: o.inputDriver}))
}

// seeder is a poll input that can seed checkpoints (jirapoll.Input).
type seeder interface {
	Name() string
	SiteURL() string
	Seed(ctx context.Context) (jirapoll.SeedReport, error)
}

// seedResult is one input's line of `fullsend poll seed -o json`.
type seedResult struct {
	Driver  string `json:"driver"`
	Site    string `json:"site"`
	Matched int    `json:"matched"`
	Seeded  int    `json:"seeded"`
	Failed  int    `json:"failed"`
}

func (app *App) runPollSeed(ctx context.Context, o *pollSeedOptions) error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	ctl, err := app.adminController(ctx, o.pollOptions)
	if err != nil {
		return err
	}
	results := []seedResult{}
	err = func() error {
		for _, in := range ctl.Inputs() {
			s, ok := in.(seeder)
			if !ok {
				continue
			}
			rep, err := s.Seed(ctx)
			r := seedResult{Driver: s.Name(), Site: s.SiteURL(), Matched: rep.Matched, Seeded: rep.Seeded, Failed: rep.Failed}
			results = append(results, r)
			if o.format == formatText {
				fmt.Fprintf(app.Stdout, "%s %s: %s matched, %d seeded, %d failed\n", r.Driver, r.Site, english.Count(r.Matched, "issue"), r.Seeded, r.Failed)
			}
			if err != nil {
				return controller.StopErr(err)
			}
			if rep.Failed > 0 {
				return fmt.Errorf("seed: %s failed; run it again", english.Count(rep.Failed, "write"))
			}
		}
		return nil
	}()
	if o.format == formatJSON {
		if perr := app.printJSON(results); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

func newPollCancelCmd(app *App, parent *pollOptions, runF func(context.Context, *pollCancelOptions) error) *cobra.Command {
	cmd, o := command(&cobra.Command{
		Use:   "cancel",
		Short: "Remove the poll lock of an issue, cancelling the runs it records",
		Long: `Cancels the runs recorded in the issue's poll lock (when the output driver
can cancel runs), then deletes the lock. lastCheck is left alone: the
changes those runs were about stay handled, and the next change starts a
new run.`,
		Example: `  fullsend poll cancel --issue PROJ-123
  fullsend poll cancel --issue PROJ-123 --output-driver gha-dispatch -o json`,
		Args: noArgs,
	}, runF, app.runPollCancel)
	o.pollOptions = parent
	cmd.Flags().StringVar(&o.issue, "issue", "", "issue key whose poll lock to remove, e.g. PROJ-123")
	cmd.Flags().StringVar(&o.outputDriver, "output-driver", "", "output driver that started the runs: "+english.Or(drivername.OutputNames())+" (default: poll.output_driver)")
	completeValues(cmd, "output-driver", drivername.OutputNames()...)
	addOutputFlag(cmd, &o.format)
	return cmd
}

func (app *App) runPollCancel(ctx context.Context, o *pollCancelOptions) error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.issue == "" {
		return UserError(errors.New("--issue is required (e.g. --issue PROJ-123)"))
	}
	if !jirakey.ValidIssue(o.issue) {
		return UserError(fmt.Errorf("--issue %q: not a Jira issue key (want e.g. PROJ-123)", o.issue))
	}
	ctl, err := app.adminController(ctx, o.pollOptions)
	if err != nil {
		return err
	}
	lockIn, ok := ctl.LockInput().(*jirapoll.Input)
	if !ok {
		return UserError(fmt.Errorf("poll cancel: no %s input driver holds the poll locks", jirapoll.Name))
	}
	name := o.outputDriver
	if name == "" {
		name = ctl.Config().Poll.OutputDriver
	}
	var cancel jirapoll.Canceller
	if out, err := ctl.NewOutput(name); err == nil {
		if c, ok := out.(output.Canceller); ok {
			cancel = c.Cancel
		}
	} else {
		app.Log.Warn("output driver unavailable; recorded runs are reported, not cancelled", "driver", name, "error", err.Error())
	}
	rep, err := lockIn.Driver.Cancel(ctx, o.issue, cancel)
	if o.format == formatJSON {
		return app.cancelJSON(o.issue, rep, err)
	}
	return app.cancelText(o.issue, rep, err)
}

// cancelErr maps the outcome of jirapoll's Cancel to the command's error;
// done reports that there is nothing more to print.
func cancelErr(issue string, err error) (done bool, _ error) {
	switch {
	case errors.Is(err, jirapoll.ErrNoIssue):
		return true, UserError(fmt.Errorf("poll cancel: issue %s does not exist (or the account cannot see it)", issue))
	case errors.Is(err, jirapoll.ErrNoLock):
		return false, nil
	case err != nil:
		return true, controller.StopErr(err)
	}
	return false, nil
}

func (app *App) cancelText(issue string, rep jirapoll.CancelReport, err error) error {
	if done, err := cancelErr(issue, err); done {
		return err
	}
	if errors.Is(err, jirapoll.ErrNoLock) {
		fmt.Fprintf(app.Stdout, "%s has no poll lock (%s): nothing to cancel\n", issue, rep.Property)
		return nil
	}
	if rep.Lock != nil {
		fmt.Fprintf(app.Stdout, "%s: lock held by %s (phase %s, written %s)\n", issue, rep.Lock.ID, rep.Lock.Phase,
			rep.Lock.TS.UTC().Format(time.RFC3339))
	} else {
		fmt.Fprintf(app.Stdout, "%s: lock value was corrupt (%s)\n", issue, rep.Corrupt)
	}
	failed := 0
	for _, r := range rep.Runs {
		if r.Err != nil {
			failed++
			fmt.Fprintf(app.Stdout, "  run %s %s %s: cancel failed: %v\n", r.Ref.Driver, r.Ref.ID, r.Ref.URL, r.Err)
			continue
		}
		fmt.Fprintf(app.Stdout, "  run %s %s %s: %s\n", r.Ref.Driver, r.Ref.ID, r.Ref.URL, r.Outcome)
	}
	fmt.Fprintf(app.Stdout, "%s: poll lock %s deleted; lastCheck left unchanged\n", issue, rep.Property)
	if failed > 0 {
		return fmt.Errorf("poll cancel: %d of %d runs could not be cancelled", failed, len(rep.Runs))
	}
	return nil
}

// cancelResult is what `fullsend poll cancel -o json` prints.
type cancelResult struct {
	Issue    string          `json:"issue"`
	Property string          `json:"property"`
	Lock     *cancelLockInfo `json:"lock"`              // null: no lock, or a corrupt value
	Corrupt  string          `json:"corrupt,omitempty"` // why the lock value could not be read
	Runs     []cancelRun     `json:"runs"`
	Deleted  bool            `json:"deleted"`
}

type cancelLockInfo struct {
	ID      string `json:"id"`
	Phase   string `json:"phase"`
	Written string `json:"written"`
}

type cancelRun struct {
	Driver  string `json:"driver"`
	ID      string `json:"id"`
	URL     string `json:"url,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Error   string `json:"error,omitempty"`
}

func (app *App) cancelJSON(issue string, rep jirapoll.CancelReport, err error) error {
	if done, err := cancelErr(issue, err); done {
		return err
	}
	res := cancelResult{Issue: issue, Property: rep.Property, Corrupt: rep.Corrupt, Runs: []cancelRun{}, Deleted: rep.Deleted}
	if rep.Lock != nil {
		res.Lock = &cancelLockInfo{ID: rep.Lock.ID, Phase: string(rep.Lock.Phase), Written: rep.Lock.TS.UTC().Format(time.RFC3339)}
	}
	failed := 0
	for _, r := range rep.Runs {
		cr := cancelRun{Driver: r.Ref.Driver, ID: r.Ref.ID, URL: r.Ref.URL, Outcome: r.Outcome}
		if r.Err != nil {
			failed++
			cr.Error = r.Err.Error()
		}
		res.Runs = append(res.Runs, cr)
	}
	if err := app.printJSON(res); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("poll cancel: %d of %d runs could not be cancelled", failed, len(rep.Runs))
	}
	return nil
}
