package runner

import (
	"os"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/runreport"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
)

// EnvMetricsTextfile is the default of --metrics-textfile.
const EnvMetricsTextfile = "FULLSEND_METRICS_TEXTFILE"

// reportIsolation reports how the agent is about to be started, before it
// starts: fullsend_run_isolation_total in the Prometheus text format at
// --metrics-textfile (or $FULLSEND_METRICS_TEXTFILE), and a run report on
// the descriptor $FULLSEND_RUN_REPORT_FD names when the local executor
// started this run (package metrics). A textfile that cannot be written
// is bad input; a report that cannot be written is logged.
func reportIsolation(r Request, mode sandbox.Mode) error {
	path := r.Flags.MetricsTextfile
	if path == "" {
		path = r.Getenv(EnvMetricsTextfile)
	}
	if path != "" {
		if err := runreport.WriteTextfile(path, mode); err != nil {
			return inputErr("--metrics-textfile %s: %v", path, err)
		}
	}
	fd := strings.TrimSpace(r.Getenv(runreport.FDEnv))
	if fd == "" {
		return nil
	}
	var f *os.File
	if n, err := strconv.Atoi(fd); err == nil {
		f = reportFile(n)
	}
	if f == nil {
		r.Log.Warn("ignoring a run report descriptor that is not an open file", "var", runreport.FDEnv, "value", fd)
		return nil
	}
	err := runreport.Write(f, mode)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Log.Warn("writing the run report", "var", runreport.FDEnv, "error", err.Error())
	}
	return nil
}
