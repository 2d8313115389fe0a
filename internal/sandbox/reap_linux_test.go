//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chain starts itself with $1-1 in the background and then becomes
// sleep, so that each process is the parent of the next; each writes its
// pid to $2/pids, the last one also $2/built. It first tries to leave its
// cgroup for the one above ($3).
const chain = `echo $$ >>"$2/pids"
[ -n "$3" ] && echo $$ 2>/dev/null >"$3/cgroup.procs" && echo $$ >>"$2/escaped"
if [ "$1" -gt 1 ]; then /bin/sh -c "$CHAIN" chain $(($1 - 1)) "$2" "$3" & else : >"$2/built"; fi
exec sleep 1000`

// forkLoop forks for ever (bounded by RLIMIT_NPROC for the agent's uid,
// which only these tests use) …
const forkLoop = `ulimit -u 200; echo $$ >>"$2/pids"; : >"$2/built"; while :; do sleep 1000 & done 2>/dev/null`

// … and moving forks its successor and ends, for ever: at any time one
// or two processes, each with a new pid.
const moving = `: >"$2/built"; /bin/sh -c "$CHAIN" moving x "$2" & exit 0`

// leave starts script as an agent that puts it in a session of its own
// and ends once it is running (with $1 = n); it returns the reaper, the
// agent's pid (its group) and the directory the script writes to.
func leave(t *testing.T, r *Reaper, script string, n int) (int, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "fullsend-reap-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o777))
	parent := ""
	if r.cg != nil {
		parent = filepath.Dir(r.cg.dir)
	}
	cmd := exec.Command("/bin/sh", "-c", `setsid /bin/sh -c "$CHAIN" chain "$1" "$2" "$3" </dev/null >/dev/null 2>&1 &
while [ ! -e "$2/built" ]; do sleep 0.01; done`, "agent", strconv.Itoa(n), dir, parent)
	cmd.Env = []string{"CHAIN=" + script, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	must(t, r.Start(cmd))
	must(t, cmd.Wait())
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the runner's group kill does
	return cmd.Process.Pid, dir
}

// agentProcs lists the processes running as the agent's uid.
func agentProcs(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	must(t, err)
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok && p.uid == agentID.UID {
			out = append(out, pid)
		}
	}
	return out
}

// killAgentProcs ends what a failed test left (as the agent's uid).
func killAgentProcs(t *testing.T) {
	t.Cleanup(func() {
		for i := 0; i < 1000 && len(agentProcs(t)) > 0; i++ {
			_ = exec.Command("setpriv", "--reuid="+strconv.Itoa(int(agentID.UID)), "--regid="+strconv.Itoa(int(agentID.GID)),
				"--clear-groups", "--", "kill", "-9", "-1").Run()
			r := &Reaper{id: agentID, limit: time.Second, now: time.Now, sleep: time.Sleep}
			r.Reap(0)
		}
	})
}

// What an agent leaves outside its process group ends with it, however
// it was started: a chain of 20 processes each the parent of the next
// (a reaper that only kills its own children needs 20 rounds), a fork
// loop, a process that keeps replacing itself by a new one. In its
// cgroup the agent cannot move itself out.
func TestReapEndsWhatTheAgentLeft(t *testing.T) {
	needRoot(t)
	for _, tc := range []struct {
		name   string
		cgroup bool
		script string
		n      int
	}{
		{"cgroup: a chain of 20", true, chain, 20},
		{"cgroup: a fork loop", true, forkLoop, 1},
		{"cgroup: a process replacing itself", true, moving, 1},
		{"subreaper loop: a chain of 20", false, chain, 20},
		{"subreaper loop: a fork loop", false, forkLoop, 1},
		{"subreaper loop: a process replacing itself", false, moving, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			killAgentProcs(t)
			if !tc.cgroup {
				withoutCgroup(t)
			}
			r, err := NewReaper(agentID)
			must(t, err)
			if tc.cgroup && r.cg == nil {
				t.Skipf("no cgroup for the agent here: %s", r.NoCgroup)
			}
			if !tc.cgroup && r.cg != nil {
				t.Fatal("the agent got a cgroup")
			}
			pgid, dir := leave(t, r, tc.script, tc.n)
			if got := len(agentProcs(t)); got == 0 {
				t.Fatal("the agent left nothing running; the test proves nothing")
			}
			res := r.Reap(pgid)
			if left := agentProcs(t); len(left) != 0 || len(res.Left) != 0 {
				t.Fatalf("still running as the agent: %v (reported %v)", left, res.Left)
			}
			if res.Killed == 0 || res.Cgroup != tc.cgroup {
				t.Errorf("Reap = %+v", res)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "escaped")); err == nil {
				t.Errorf("processes left the agent's cgroup: %s", b)
			}
			if r.cg != nil {
				if _, err := os.Stat(r.cg.dir); !os.IsNotExist(err) {
					t.Errorf("the agent's cgroup %s is still there: %v", r.cg.dir, err)
				}
			}
		})
	}
}

// When processes outlive ReapLimit, Reap says which.
func TestReapReportsWhatItCouldNotKill(t *testing.T) {
	needRoot(t)
	killAgentProcs(t)
	withoutCgroup(t)
	r, err := NewReaper(agentID)
	must(t, err)
	now := time.Unix(1e9, 0)
	r.now = func() time.Time { return now }
	pgid, dir := leave(t, r, chain, 3)
	pids := readPids(t, filepath.Join(dir, "pids"))
	if len(pids) != 3 {
		t.Fatalf("pids %v", pids)
	}
	r.sleep = func(time.Duration) {
		// The first round killed the head of the chain: once the second
		// is fullsend's child, the time is up.
		for {
			if p, ok := readProc(pids[1]); ok && p.ppid == os.Getpid() {
				break
			}
			time.Sleep(time.Millisecond)
		}
		now = now.Add(ReapLimit)
	}
	res := r.Reap(pgid)
	if res.Killed != 1 || len(res.Left) != 1 || res.Left[0] != pids[1] {
		t.Fatalf("Reap = %+v, want 1 killed and %d left", res, pids[1])
	}
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		must(t, err)
		out = append(out, pid)
	}
	return out
}
