package runner

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"sort"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/procgroup"
	"github.com/fullsend-dev/fullsend/internal/procgroup/tether"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
)

// agentIdentity hands the workspace to the planned identity (package
// sandbox) and returns the identity to start the agent as, the agent's
// environment with HOME, TMPDIR, USER and LOGNAME of that identity, and the
// function that hands the workspace back. Without isolation it returns
// env unchanged and logs the one warning that says what the agent can
// read (docs/security.md, "Without isolation").
func agentIdentity(plan sandbox.Plan, dir, runDir string, env []string, log *slog.Logger) (*sandbox.Identity, []string, func(), error) {
	switch plan.Mode {
	case sandbox.ModeUnavailable:
		log.Warn("the agent runs as fullsend's own user: it can read the environment of every process of that user "+
			"(the CI step's shell included) and, with sudo, everything; see docs/security.md", "isolation", string(plan.Mode), "reason", plan.Reason)
		return nil, env, func() {}, nil
	case sandbox.ModeNone:
		log.Info("agent isolation is off (run.isolation: none)", "isolation", string(sandbox.ModeNone))
		return nil, env, func() {}, nil
	case "":
		return nil, env, func() {}, nil // a Spec built without a plan: as fullsend's user
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, nil, err
		}
		dir = wd
	}
	lease, err := sandbox.Hand(sandbox.Workspace{Dir: dir, Run: runDir}, plan.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	logKept(log, lease.Kept, "the hand-over left files with more than one link as they were (another of their names may be outside the checkout)")
	back := func() {
		kept, err := lease.Return()
		if err != nil {
			log.Error("hand the workspace back from the agent", "dir", dir, "error", err.Error())
		}
		logKept(log, kept, "the hand-back left files with more than one link as they were (the agent may have linked files from outside the checkout)")
	}
	set := map[string]string{"HOME": lease.Home, "TMPDIR": lease.Tmp, "USER": "", "LOGNAME": ""}
	if u, err := user.LookupId(strconv.FormatUint(uint64(plan.ID.UID), 10)); err == nil {
		set["USER"], set["LOGNAME"] = u.Username, u.Username
	}
	log.Info("the agent runs under its own identity", "isolation", string(plan.Mode), "uid", plan.ID.UID, "gid", plan.ID.GID, "workspace", dir)
	id := plan.ID
	return &id, overrideEnv(env, set), back, nil
}

// logKept warns about the files a hand-over or hand-back kept as they
// were (sandbox.Kept).
func logKept(log *slog.Logger, k sandbox.Kept, msg string) {
	if k.N > 0 {
		log.Warn(msg, "count", k.N, "files", strings.Join(k.Paths, " "))
	}
}

// jail is what an agent's start leaves to end: with isolation, the pipes
// of its output and its reaper; its tether, when it has one.
type jail struct {
	*sandbox.Pipes
	reaper *sandbox.Reaper
	tether *tether.Tether
}

// isolate prepares cmd to start as p.As: its output through pipes the
// agent owns, and the start by the reaper (sandbox.Starter, in the
// agent's cgroup where there is one). Without p.As it does nothing and
// returns a jail that does nothing.
func (p Process) isolate(cmd *exec.Cmd, opts *procgroup.Options) (*jail, error) {
	if p.As == nil {
		return &jail{Pipes: &sandbox.Pipes{}}, nil
	}
	pipes, err := sandbox.NewPipes(cmd, *p.As)
	if err != nil {
		return nil, err
	}
	reaper, err := sandbox.NewReaper(*p.As)
	if err != nil {
		p.log().Warn("could not become the reaper of the agent's orphans; processes it leaves outside its group may outlive the run", "error", err.Error())
	}
	if reaper.NoCgroup != "" {
		p.log().Debug("the agent gets no cgroup of its own; its orphans are reaped one by one", "reason", reaper.NoCgroup)
	}
	opts.Start = reaper.Start
	return &jail{Pipes: pipes, reaper: reaper}, nil
}

// reapOrphans ends what an isolated agent (the leader of group pgid) left
// outside its process group, and says what could not be ended.
func (p Process) reapOrphans(j *jail, pgid int) {
	if j.reaper == nil {
		return
	}
	r := j.reaper.Reap(pgid)
	if r.Killed > 0 {
		p.log().Warn("agent left processes running outside its process group; killed them", "count", r.Killed, "cgroup", r.Cgroup)
	}
	if len(r.Left) > 0 {
		p.log().Error("processes the agent left are still running after "+sandbox.ReapLimit.String()+"; they may reach the next run's agent",
			"count", len(r.Left), "pids", fmt.Sprint(r.Left))
	}
}

// overrideEnv sets (or, for an empty value, removes) variables of a
// sorted NAME=value list and keeps it sorted.
func overrideEnv(env []string, set map[string]string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}
