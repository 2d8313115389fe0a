package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/procgroup"
	"github.com/fullsend-dev/fullsend/internal/runreport"
	"github.com/fullsend-dev/fullsend/internal/steer/localsteer"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// processLauncher runs each job as `fullsend run --harness NAME
// --event-file F --config-dir DIR --poll-lock JSON` with the event in a
// private temporary file (mode 0600) that is removed when the run ends.
// The child gets its own process group (package procgroup), so a Ctrl-C meant for the parent
// does not reach it; termination sends SIGTERM to the group. The child
// forwards it to its agent and kills the agent after its own grace period
// (killDelay), then releases the poll lock; only a child still running
// killDelay+teardown after the SIGTERM is killed (SIGKILL to its group), so that the
// parent's kill never races the child's own and orphans the agent.
type processLauncher struct {
	exe       string
	configDir string
	tempDir   string
	killDelay time.Duration
	teardown  time.Duration
	stdout    io.Writer
	stderr    io.Writer
	log       *slog.Logger
	logFlags  []string                             // --log-format, --log-level as the parent's
	after     func(time.Duration) <-chan time.Time // nil: time.After
	isolation *runreport.Isolation                 // nil: no run report asked for
}

// newProcessLauncher builds the launcher of New; o already carries New's
// defaults (KillDelay, Teardown, Log).
func newProcessLauncher(o Options) (*processLauncher, error) {
	exe := o.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("local: cannot find the fullsend executable to run agents: %w", err)
		}
	}
	p := &processLauncher{exe: exe, configDir: o.ConfigDir, tempDir: o.TempDir,
		killDelay: o.KillDelay, teardown: o.Teardown, log: o.Log, after: o.After,
		isolation: runreport.NewIsolation(o.Metrics)}
	if o.LogFormat != "" {
		p.logFlags = append(p.logFlags, "--log-format", o.LogFormat)
	}
	if o.LogLevel != "" {
		p.logFlags = append(p.logFlags, "--log-level", o.LogLevel)
	}
	if p.configDir == "" {
		p.configDir = ".fullsend"
	}
	out, errw := o.Stdout, o.Stderr
	if out == nil {
		out = os.Stderr
	}
	if errw == nil {
		errw = os.Stderr
	}
	// Children write whole lines through one lock per stream, so lines of
	// parallel runs never interleave.
	p.stdout, p.stderr = syncio.NewWriter(out), syncio.NewWriter(errw)
	if out == errw {
		p.stderr = p.stdout
	}
	return p, nil
}

// Args returns the command-line arguments of `fullsend run` for job with
// the event in eventFile. An absent poll lock is passed as an explicit
// empty --poll-lock so that an inherited $FULLSEND_POLL_LOCK is not used.
func Args(job Job, eventFile, configDir string) ([]string, error) {
	lock := ""
	if job.Run.PollLock != nil {
		b, err := json.Marshal(job.Run.PollLock)
		if err != nil {
			return nil, err
		}
		lock = string(b)
	}
	return []string{"run", "--harness", job.Run.Harness, "--event-file", eventFile,
		"--config-dir", configDir, "--poll-lock", lock}, nil
}

// Launch implements Launcher.
func (p *processLauncher) Launch(ctx context.Context, job Job) error {
	r := job.Run
	what := fmt.Sprintf("local run %d (harness %s, key %s)", job.Seq, r.Harness, r.Key)
	file, err := writeEventFile(p.tempDir, r)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer os.Remove(file)
	args, err := Args(job, file, p.configDir)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	args = append(args, p.logFlags...)
	prefix := fmt.Sprintf("[%s %s #%d] ", r.Harness, r.Key, job.Seq)
	stdout := newPrefixWriter(p.stdout, prefix)
	stderr := newPrefixWriter(p.stderr, prefix)
	cmd := exec.Command(p.exe, args...)
	cmd.Env = childEnv(os.Environ(), job)
	report, err := p.askReport(cmd)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer report.Close()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A grandchild holding the output pipes open must not hang the run.
	cmd.WaitDelay = p.killDelay + p.teardown
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: start %s: %w", what, p.exe, err)
	}
	g, err := procgroup.Start(cmd, procgroup.Options{After: p.after})
	if err != nil {
		return fmt.Errorf("%s: start %s: %w", what, p.exe, err)
	}
	p.log.Info("local run started", "harness", r.Harness, "key", string(r.Key),
		"seq", job.Seq, "pid", g.Pid())
	select {
	case <-g.Done():
	case <-ctx.Done():
		if err := g.Terminate(syscall.SIGTERM, p.killDelay+p.teardown); err != nil {
			p.log.Warn("terminating local run", "seq", job.Seq, "error", err.Error())
		}
	}
	_, err = g.Wait()
	stdout.Flush()
	stderr.Flush()
	p.countReport(report, job.Seq)
	p.log.Debug("local run ended", "seq", job.Seq, "duration", time.Since(start))
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ctx.Err() == nil {
			return fmt.Errorf("%s: exit code %d", what, ee.ExitCode())
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: terminated at shutdown: %w", what, err)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// writeEventFile writes r's event to a new private file and returns its
// path.
func writeEventFile(dir string, r plan.Run) (string, error) {
	data, err := json.Marshal(r.Event)
	if err != nil {
		return "", fmt.Errorf("encode event: %w", err)
	}
	f, err := os.CreateTemp(dir, "fullsend-event-*.json") // mode 0600
	if err != nil {
		return "", fmt.Errorf("event file: %w", err)
	}
	if _, err = f.Write(data); err == nil {
		err = f.Chmod(0o600)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("event file %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// RunIDEnv names the variable that hands the child `fullsend run` its
// run's id: the Ref.ID Dispatch returned (the sequence number), which the
// poller recorded in the poll lock's runs. The child records and removes
// the lock entry {"driver":"local","id":$FULLSEND_LOCAL_RUN_ID} under it
// (runner.LocalRunIDEnv).
const RunIDEnv = "FULLSEND_LOCAL_RUN_ID"

// childEnv is the parent's environment without the dispatch inputs a CI
// job would set (the child gets them as flags), plus the scope key and the
// run id.
func childEnv(parent []string, job Job) []string {
	env := make([]string, 0, len(parent)+2)
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if isDispatchInput(name) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, plan.EnvVar(plan.InSerializationKey)+"="+string(job.Run.Key),
		RunIDEnv+"="+strconv.FormatUint(job.Seq, 10))
	env = append(env, steerEnv(job)...)
	if job.Run.Entity != nil {
		// The entity as the dispatch input carries it (cut to the inputs'
		// limit, well within an environment variable's).
		env = append(env, plan.EnvVar(plan.InNormalizedEntity)+"="+job.Run.Inputs()[plan.InNormalizedEntity])
	}
	return env
}

func isDispatchInput(name string) bool {
	for _, in := range plan.Names {
		if name == plan.EnvVar(in) {
			return true
		}
	}
	switch name {
	case gitlab.VarEvent, gitlab.VarEntity, gitlab.VarPollLockID, gitlab.VarPollLockDriver, gitlab.VarPollLockProperty, RunIDEnv,
		runreport.FDEnv, localsteer.EnvQueue, gitlab.VarIdempotencyKey:
		return true
	}
	return false
}
