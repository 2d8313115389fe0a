package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fullsend-dev/fullsend/internal/sandbox"
)

// RunReportFDEnv names the variable through which the local executor
// gives its child `fullsend run` the file descriptor of the run report:
// a private file the child writes one RunReport to, as a JSON line,
// before its agent starts, and then closes, so that the agent never
// holds it. The executor reads it once the child has ended.
const RunReportFDEnv = "FULLSEND_RUN_REPORT_FD"

// MaxRunReport bounds what is read of a run report.
const MaxRunReport = 4096

// RunReport is what a `fullsend run` reports to the executor that started
// it.
type RunReport struct {
	Isolation sandbox.Mode `json:"isolation"` // how its agent is started
}

// isolationModes are the values of the mode label, all exported from the
// start (at 0) so that a query or an alert sees every series.
var isolationModes = []sandbox.Mode{sandbox.ModeUser, sandbox.ModeNone, sandbox.ModeUnavailable}

// WriteRunReport writes the report of a run whose agent is started in
// mode.
func WriteRunReport(w io.Writer, mode sandbox.Mode) error {
	b, err := json.Marshal(RunReport{Isolation: mode})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ParseRunReport decodes a run report. Empty data (a run that ended
// before it decided how to start its agent) is a zero report; anything
// else must be one JSON object with a known isolation mode.
func ParseRunReport(data []byte) (RunReport, error) {
	var r RunReport
	if len(data) == 0 {
		return r, nil
	}
	if len(data) > MaxRunReport {
		return RunReport{}, fmt.Errorf("run report: longer than %d bytes", MaxRunReport)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return RunReport{}, fmt.Errorf("run report: %w", err)
	}
	if !slices.Contains(isolationModes, r.Isolation) {
		return RunReport{}, fmt.Errorf("run report: unknown isolation %q", r.Isolation)
	}
	return r, nil
}

// RunIsolation counts runs by how their agent was started:
// fullsend_run_isolation_total{mode="user|none|unavailable"}.
type RunIsolation struct{ c *prometheus.CounterVec }

// NewRunIsolation registers the run isolation counter on reg (the
// component that learns each run's mode registers it: the local executor
// on the poller's registry). A counter already registered there is
// reused. nil when reg is nil (no metrics).
func NewRunIsolation(reg prometheus.Registerer) *RunIsolation {
	if reg == nil {
		return nil
	}
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "run_isolation_total",
		Help: "Agent runs by isolation mode (user: under an identity of its own; none: run.isolation none; " +
			"unavailable: fullsend could not switch users)."}, []string{"mode"})
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			panic(err) // a different metric under the same name: a programming error
		}
		c = are.ExistingCollector.(*prometheus.CounterVec)
	}
	for _, m := range isolationModes {
		c.WithLabelValues(string(m))
	}
	return &RunIsolation{c: c}
}

// Observe counts one run started in mode; r may be nil.
func (r *RunIsolation) Observe(mode sandbox.Mode) {
	if r != nil && slices.Contains(isolationModes, mode) {
		r.c.WithLabelValues(string(mode)).Inc()
	}
}

// WriteRunIsolationTextfile writes fullsend_run_isolation_total of one
// run started in mode (1 for mode, 0 for the others) to path in the
// Prometheus text format, atomically (a temporary file in path's
// directory renamed over path): for node_exporter's textfile collector,
// or a CI artifact.
func WriteRunIsolationTextfile(path string, mode sandbox.Mode) error {
	reg := prometheus.NewRegistry()
	NewRunIsolation(reg).Observe(mode)
	return prometheus.WriteToTextfile(path, reg)
}

// Registerer is the poller's registry, on which components that produce
// their own series register them (an output driver through
// output.Env.Metrics). nil when m is nil.
func (m *Metrics) Registerer() prometheus.Registerer {
	if m == nil {
		return nil
	}
	return m.reg
}
