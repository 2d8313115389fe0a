package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binary is the fullsend binary, built once per test run by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fullsend-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "fullsend")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// configDir writes a minimal configuration with one harness.
func configDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"config.yaml": "version: 1\nrepo: acme/platform\nagents:\n  - name: triage\n    source: triage.yaml\n",
		"triage.yaml": "role: triage\ntrigger: 'true'\nrun:\n  command: [\"true\"]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// waitFor reads r line by line until one contains want, and returns what
// it read; it fails the test if r ends first or nothing comes for a long
// time (the process is then stuck, which is the bug under test).
func waitFor(t *testing.T, r io.Reader, want string) {
	t.Helper()
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		var seen []string
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				found <- nil
				io.Copy(io.Discard, r) //nolint:errcheck // keep the pipe drained
				return
			}
			seen = append(seen, sc.Text())
		}
		found <- errors.New("stderr ended without " + want + ": " + strings.Join(seen, "\n"))
	}()
	select {
	case err := <-found:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no %q on stderr within 30s", want)
	}
}

// exitCode waits for cmd and returns its exit code; it fails the test if
// the process does not end promptly or was killed by the signal itself.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee) && ee.ExitCode() >= 0:
			return ee.ExitCode()
		}
		t.Fatalf("fullsend did not exit normally: %v", err)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill() //nolint:errcheck
		<-done
		t.Fatal("fullsend ignored the signal for 30s while reading standard input")
	}
	return -1
}

// TestSignalWhileReadingStdin runs the real binary with a standard input
// that never delivers anything (a pipe nobody writes or closes), waits
// until the command is blocked reading it, and signals it: it must end at
// once with 128+signal.
func TestSignalWhileReadingStdin(t *testing.T) {
	cases := []struct {
		name string
		args []string
		sig  syscall.Signal
		want int
	}{
		{"dispatch SIGINT", []string{"dispatch"}, syscall.SIGINT, 130},
		{"dispatch SIGTERM", []string{"dispatch", "--input-file", "-"}, syscall.SIGTERM, 143},
		{"event validate SIGINT", []string{"event", "validate", "-"}, syscall.SIGINT, 130},
		{"run SIGTERM", []string{"run", "--harness", "triage", "--event-file", "-", "--poll-lock", ""}, syscall.SIGTERM, 143},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--config-dir", configDir(t), "--log-level", "debug"}, tc.args...)
			cmd := exec.Command(binary, args...)
			stdin, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			defer stdin.Close()
			signalWhen(t, cmd, stdin, "waiting for the event on standard input", tc.sig, tc.want)
		})
	}
}

// signalWhen starts cmd with stdin, waits until its stderr shows want,
// sends sig and checks the exit code is code.
func signalWhen(t *testing.T, cmd *exec.Cmd, stdin *os.File, want string, sig syscall.Signal, code int) {
	t.Helper()
	cmd.Stdin = stdin
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, stderr, want)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if got := exitCode(t, cmd); got != code {
		t.Errorf("exit code %d, want %d", got, code)
	}
}
