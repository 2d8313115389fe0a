// Package runreport is what a `fullsend run` reports of how its agent was
// started (its isolation mode): the run report it writes the executor that
// started it, the counter that executor registers on the poller's registry
// (fullsend_run_isolation_total), and the textfile of a one-shot run.
package runreport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fullsend-dev/fullsend/internal/sandbox"
)

// FDEnv names the variable through which the local executor
// gives its child `fullsend run` the file descriptor of the run report:
// a private file the child writes one Report to, as a JSON line,
// before its agent starts, and then closes, so that the agent never
// holds it. The executor reads it once the child has ended.
const FDEnv = "FULLSEND_RUN_REPORT_FD"

// MaxSize bounds what is read of a run report.
const MaxSize = 4096

// Report is what a `fullsend run` reports to the executor that started
// it.
type Report struct {
	Isolation sandbox.Mode `json:"isolation"` // how its agent is started
}

// isolationModes are the values of the mode label, all exported from the
// start (at 0) so that a query or an alert sees every series.
var isolationModes = []sandbox.Mode{sandbox.ModeUser, sandbox.ModeNone, sandbox.ModeUnavailable}

// Write writes the report of a run whose agent is started in
// mode.
func Write(w io.Writer, mode sandbox.Mode) error {
	b, err := json.Marshal(Report{Isolation: mode})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Parse decodes a run report. Empty data (a run that ended
// before it decided how to start its agent) is a zero report; anything
// else must be one JSON object with a known isolation mode.
func Parse(data []byte) (Report, error) {
	var r Report
	if len(data) == 0 {
		return r, nil
	}
	if len(data) > MaxSize {
		return Report{}, fmt.Errorf("run report: longer than %d bytes", MaxSize)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return Report{}, fmt.Errorf("run report: %w", err)
	}
	if !slices.Contains(isolationModes, r.Isolation) {
		return Report{}, fmt.Errorf("run report: unknown isolation %q", r.Isolation)
	}
	return r, nil
}

// Isolation counts runs by how their agent was started:
// fullsend_run_isolation_total{mode="user|none|unavailable"}.
type Isolation struct{ c *prometheus.CounterVec }

// NewIsolation registers the run isolation counter on reg (the
// component that learns each run's mode registers it: the local executor
// on the poller's registry). A counter already registered there is
// reused. nil when reg is nil (no metrics).
func NewIsolation(reg prometheus.Registerer) *Isolation {
	if reg == nil {
		return nil
	}
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "fullsend", Name: "run_isolation_total",
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
	return &Isolation{c: c}
}

// Observe counts one run started in mode; r may be nil.
func (r *Isolation) Observe(mode sandbox.Mode) {
	if r != nil && slices.Contains(isolationModes, mode) {
		r.c.WithLabelValues(string(mode)).Inc()
	}
}

// WriteTextfile writes fullsend_run_isolation_total of one
// run started in mode (1 for mode, 0 for the others) to path in the
// Prometheus text format, atomically (a temporary file in path's
// directory renamed over path): for node_exporter's textfile collector,
// or a CI artifact.
func WriteTextfile(path string, mode sandbox.Mode) error {
	reg := prometheus.NewRegistry()
	NewIsolation(reg).Observe(mode)
	return prometheus.WriteToTextfile(path, reg)
}
