package local

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"

	"github.com/fullsend-dev/fullsend/internal/runreport"
)

// reportFD is the report file's descriptor in the child: the first of
// cmd.ExtraFiles.
const reportFD = 3

// askReport gives the child cmd a run report to write (package metrics,
// RunReport) when isolation is counted: a private temporary file, its name
// removed at once, passed as descriptor 3 and named by
// $FULLSEND_RUN_REPORT_FD. The child closes it before its agent starts,
// so that nothing the agent runs can write it. The returned file (nil
// when none is asked for) is read by countReport and closed by the
// caller.
func (p *processLauncher) askReport(cmd *exec.Cmd) (*os.File, error) {
	if p.isolation == nil {
		return nil, nil
	}
	f, err := os.CreateTemp(p.tempDir, "fullsend-run-report-*") // mode 0600
	if err != nil {
		return nil, fmt.Errorf("run report: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("run report: %w", err)
	}
	cmd.ExtraFiles = []*os.File{f}
	cmd.Env = append(cmd.Env, runreport.FDEnv+"="+strconv.Itoa(reportFD))
	return f, nil
}

// countReport reads the report of the ended child and counts its
// isolation mode. A child that reported nothing (it ended before deciding
// how to start its agent) is not counted; a bad report is logged.
func (p *processLauncher) countReport(f *os.File, seq uint64) {
	if f == nil {
		return
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, runreport.MaxSize+1))
	if err == nil {
		var r runreport.Report
		if r, err = runreport.Parse(data); err == nil {
			p.isolation.Observe(r.Isolation)
			return
		}
	}
	p.log.Warn("local run: unreadable run report", "seq", seq, "error", err.Error())
}
