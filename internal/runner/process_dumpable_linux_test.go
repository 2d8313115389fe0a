//go:build linux

package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// probeScript is an agent that hunts for its runner's tokens: in the
// runner's /proc environ, in the runner's stack through /proc mem, and in
// its own environment. It prints what it finds.
const probeScript = `p=$PPID
echo "environ: $(tr '\0' ' ' </proc/$p/environ 2>&1)"
if dd if=/proc/$p/mem count=0 2>/dev/null; then
	r=$(grep '\[stack\]' /proc/$p/maps | cut -d' ' -f1)
	s=$((0x${r%-*})); e=$((0x${r#*-}))
	echo "mem: opened: $(dd if=/proc/$p/mem bs=4096 skip=$((s/4096)) count=$(((e-s)/4096)) 2>/dev/null | tr -c '[:print:]' '\n' | grep TOKEN= | tr '\n' ' ')"
else
	echo "mem: denied"
fi
echo "own env: $(env | tr '\n' ' ')"
`

// superviseScript runs script as an agent, under Process (hidden) or as a
// plain child (the control), and prints this process's dumpable flag.
func superviseScript(hidden bool, script string) int {
	argv := []string{"/bin/sh", "-c", script}
	env := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	if hidden {
		if _, err := (Process{Command: argv, Env: env, Stdout: os.Stdout, Stderr: os.Stdout}).Run(context.Background()); err != nil {
			fmt.Println(err)
			return 95
		}
	} else {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, os.Stdout, os.Stdout
		if err := cmd.Run(); err != nil {
			fmt.Println(err)
			return 96
		}
	}
	n, err := dumpable()
	if err != nil {
		fmt.Println(err)
		return 97
	}
	fmt.Printf("dumpable=%d\n", n)
	return 0
}

// The agent runs as the runner's user and must find none of the runner's
// tokens: not in /proc/<runner>/environ, not in /proc/<runner>/mem, not in
// its own environment. The control runs the same agent under a runner that
// stays dumpable and must find them, so the probe is known to work.
//
// Root reads every process's /proc environ whatever its dumpable flag, so
// as root the test runs the runner and its agent as the unprivileged user
// nobody (the dumpable flag itself is checked either way).
func TestAgentCannotReadRunnerSecrets(t *testing.T) {
	runner := runnerCmd(t)
	secrets := []string{"JIRA_TOKEN=fake-jira-9c41", "GITHUB_TOKEN=fake-github-7d2e", "GITLAB_TOKEN=fake-gitlab-15ab"}
	for _, tc := range []struct {
		step       string
		wantSecret bool
		wantDump   string
	}{
		{"supervise", false, "dumpable=0"},
		{"spawn", true, "dumpable=1"},
	} {
		t.Run(tc.step, func(t *testing.T) {
			t.Parallel()
			argv := append(runner, agentFlag, tc.step+"="+probeScript)
			cmd := exec.Command(argv[0], argv[1:]...)
			// The runner gets the tokens at exec, where /proc environ shows them.
			cmd.Env = append(os.Environ(), secrets...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("runner: %v\n%s", err, out.String())
			}
			got := out.String()
			if !strings.Contains(got, tc.wantDump) {
				t.Fatalf("runner output lacks %s:\n%s", tc.wantDump, got)
			}
			for _, kv := range secrets {
				_, value, _ := strings.Cut(kv, "=")
				if strings.Contains(got, value) != tc.wantSecret {
					t.Errorf("agent found %s: %v, want %v; output:\n%s", value, !tc.wantSecret, tc.wantSecret, got)
				}
			}
			if !tc.wantSecret && (!strings.Contains(got, "mem: denied") || !strings.Contains(got, "environ: Permission denied") ||
				!strings.Contains(got, "own env: PATH=")) {
				t.Errorf("agent was not refused /proc of its runner:\n%s", got)
			}
		})
	}
}

// runnerCmd is the command line that starts the test binary as a runner of
// the probe: itself, or as root a copy that the user nobody runs.
func runnerCmd(t *testing.T) []string {
	exe := agentCmd(t)[0]
	if os.Getuid() != 0 {
		return []string{exe}
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("as root the probe needs setpriv (util-linux) to run as nobody")
	}
	dir := t.TempDir()
	b, err := os.ReadFile(exe)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "runner.test"), b, 0o755)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err == nil {
			err = os.Chmod(d, 0o755)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--", filepath.Join(dir, "runner.test")}
}
