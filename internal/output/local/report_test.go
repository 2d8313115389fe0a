package local

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/runreport"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// reportIsolation plays the child's side of the run report (as `fullsend
// run` writes it, package runner): "silent" reports nothing, "garbage" a
// bad report, "fail" reports none and exits 1, any other mode itself.
func reportIsolation(mode string) int {
	fd, err := strconv.Atoi(os.Getenv(runreport.FDEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "no report descriptor:", err)
		return 9
	}
	f := os.NewFile(uintptr(fd), "report")
	defer f.Close()
	switch mode {
	case "silent":
		return 0
	case "garbage":
		fmt.Fprint(f, "isolation=user")
		return 0
	}
	code := 0
	if mode == "fail" {
		mode, code = string(sandbox.ModeNone), 1
	}
	if err := runreport.Write(f, sandbox.Mode(mode)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 9
	}
	return code
}

func TestProcessRunCountsIsolation(t *testing.T) {
	reg := prometheus.NewRegistry()
	logs := &syncio.Buffer{}
	d, err := newTestProcessDriver(t, Options{Grace: 5 * time.Second, Stdout: &syncio.Buffer{}, Stderr: &syncio.Buffer{},
		Log: slog.New(slog.NewTextHandler(logs, nil)), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(runreport.FDEnv, "1") // inherited: replaced by the run's own
	var runs []plan.Run
	for i, h := range []string{"isolation-none", "isolation-unavailable", "isolation-unavailable",
		"isolation-silent", "isolation-garbage", "isolation-fail"} {
		runs = append(runs, mkRun(h, int64(i+1), "x"))
	}
	for _, res := range d.Dispatch(context.Background(), runs) {
		if res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if err := d.Close(context.Background()); err == nil {
		t.Fatal("close: no error for the run that exited 1") // it still counts below
	}
	want := `# HELP fullsend_run_isolation_total Agent runs by isolation mode (user: under an identity of its own; none: run.isolation none; unavailable: fullsend could not switch users).
# TYPE fullsend_run_isolation_total counter
fullsend_run_isolation_total{mode="none"} 2
fullsend_run_isolation_total{mode="unavailable"} 2
fullsend_run_isolation_total{mode="user"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "fullsend_run_isolation_total"); err != nil {
		t.Fatalf("%v\nlogs:\n%s", err, logs.String())
	}
	if n := strings.Count(logs.String(), "unreadable run report"); n != 1 {
		t.Fatalf("%d warnings about a bad report, want 1 (the garbage one):\n%s", n, logs.String())
	}
}

// Without metrics no report is asked for, and one the poller inherited
// does not reach the child.
func TestProcessRunWithoutMetricsAsksNoReport(t *testing.T) {
	d, out, _, _ := newProcessDriver(t, time.Second)
	t.Setenv(runreport.FDEnv, "3")
	if res := d.Dispatch(context.Background(), []plan.Run{mkRun("ok", 1, "x")}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := `report_fd=""`; !strings.Contains(out.String(), want) {
		t.Fatalf("stdout = %q, want %s", out.String(), want)
	}
}
