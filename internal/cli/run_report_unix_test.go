//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The run report the local executor asks for: written to the descriptor
// named by FULLSEND_RUN_REPORT_FD and closed before the agent starts; a
// descriptor that is not a regular file is left alone.
func TestRunCommandWritesRunReport(t *testing.T) {
	report, err := os.Create(filepath.Join(t.TempDir(), "report"))
	if err != nil {
		t.Fatal(err)
	}
	defer report.Close()
	fd, err := syscall.Dup(int(report.Fd())) // the run closes its own copy
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	tests := []struct {
		name, fd, want, log string
	}{
		{"report file", strconv.Itoa(fd), `{"isolation":"none"}` + "\n", ""},
		{"standard stream", "1", "", "not an open file"},
		{"a pipe", strconv.Itoa(int(w.Fd())), "", "not an open file"},
		{"not a number", "three", "", "not an open file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newRunFixture(t)
			f.env["FULLSEND_RUN_REPORT_FD"] = tc.fd
			code, stderr := f.run(t, "run", "--harness", "triage", "--event-file", filepath.Join(f.dir, "event.json"), "--poll-lock", f.pollLock())
			if code != 0 || !strings.Contains(stderr, tc.log) {
				t.Fatalf("exit %d, want 0 with %q\n%s", code, tc.log, stderr)
			}
			got, err := os.ReadFile(report.Name())
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && string(got) != tc.want {
				t.Fatalf("report = %q, want %q", got, tc.want)
			}
			if tc.want == "" && string(got) != `{"isolation":"none"}`+"\n" {
				t.Fatalf("report rewritten: %q", got)
			}
		})
	}
	// The run closed its descriptor: if the number is open again, it is
	// something else.
	if target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); err == nil && target == report.Name() {
		t.Fatalf("descriptor %d still open on the report", fd)
	}
}
