// Package demo plays a short, self-checking story through the whole
// pipeline on in-process emulators: a Jira project polled by three
// concurrent pollers, runs dispatched to an emulated GitHub Actions and
// executed by `fullsend run` (lock handoff and release), an outsider
// denied, a burst coalesced, a label trigger, one harness through the
// local executor, and a GitLab merge request note delivered as a project
// webhook through a pipeline trigger (an agent pipeline started, a
// redelivery coalesced, an outsider denied, a forged payload refused), and `fullsend status` reading what the pollers
// left. Every fullsend step goes through the real command line
// (Options.Exec), so the demo shows exactly what an operator would run.
package demo

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// Exec runs one fullsend command line in process with the given
// environment and returns its exit code.
type Exec func(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int

// Options configure Run.
type Options struct {
	Out     io.Writer // progress and summary
	Exec    Exec
	Pollers int  // concurrent pollers, default 3
	Keep    bool // leave the emulators up until ctx ends
}

type demo struct {
	out         io.Writer
	exec        Exec
	pollers     int
	w           *world
	t           tally
	executed    map[int64]bool
	runFailures []string
	checks      []Check
	mu          sync.Mutex
}

// Check is one assertion of the story.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// Run plays the story. It returns the summary and an error when a check
// failed or the demo could not run.
func Run(ctx context.Context, o Options) (*Summary, error) {
	if o.Pollers <= 0 {
		o.Pollers = 3
	}
	start := time.Now()
	w, err := newWorld()
	if err != nil {
		return nil, err
	}
	defer w.close()
	d := &demo{out: o.Out, exec: o.Exec, pollers: o.Pollers, w: w, executed: map[int64]bool{}}
	d.printf("fullsend demo: Jira emulator %s, GitHub emulator %s, GitLab emulator %s, config %s\n", w.jiraURL, w.ghURL, w.gl.url, w.dir)
	d.printf("project %s: issues %v; accounts: Ada (admin), Dana (developer), Oscar (no project role), the fullsend bot\n\n", project, w.issues)
	if err := d.story(ctx); err != nil {
		return nil, err
	}
	s := d.summary(time.Since(start))
	s.Print(d.out)
	if o.Keep {
		d.printf("\n--keep: emulators stay up until interrupted (Ctrl-C). In another shell:\n"+
			"  unset JIRA_USER_EMAIL  # the Jira emulator is reached with Bearer auth\n"+
			"  export JIRA_BASE_URL=%s JIRA_TOKEN=%s GITHUB_API_URL=%s GITHUB_TOKEN=%s\n"+
			"  fullsend --config-dir %s poll --dry-run\n"+
			"  GitLab: export CI_API_V4_URL=%s/api/v4 GITLAB_TOKEN=%s  (config: %s)\n",
			w.jiraURL, jiraToken, w.ghURL, gitHubToken, w.dir, w.gl.url, glToken, w.gl.dir)
		<-ctx.Done()
	}
	if !s.AllOK() {
		return s, fmt.Errorf("demo: %d of %d checks failed", s.Failed(), len(s.Checks))
	}
	return s, nil
}

func (d *demo) printf(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.out, format, args...)
}

func (d *demo) check(name string, ok bool, detail string, args ...any) {
	c := Check{Name: name, OK: ok, Detail: fmt.Sprintf(detail, args...)}
	d.checks = append(d.checks, c)
	mark := "ok  "
	if !ok {
		mark = "FAIL"
	}
	d.printf("  [%s] %s: %s\n", mark, c.Name, c.Detail)
}

// run executes one fullsend command line through Exec with private,
// synchronized output buffers (a command's logger and its child processes
// may write at once) and returns the exit code and both outputs.
func (d *demo) run(ctx context.Context, env map[string]string, args ...string) (int, string, string) {
	return d.runIn(ctx, d.w.dir, env, args...)
}

// runIn is run with another config directory.
func (d *demo) runIn(ctx context.Context, dir string, env map[string]string, args ...string) (int, string, string) {
	var stdout, stderr syncio.Buffer
	code := d.exec(ctx, append([]string{"--config-dir", dir, "--log-format", "json"}, args...), env, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
