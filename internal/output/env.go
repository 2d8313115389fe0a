package output

import (
	"io"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
)

// Env is what building an output driver from configuration needs besides
// the configuration itself (each driver package's FromConfig).
type Env struct {
	Getenv func(string) string // credentials and CI variables
	Stdout io.Writer           // where plan printers write
	Stderr io.Writer           // where in-process agents' output goes
	Log    *slog.Logger
	// LogFormat and LogLevel are the command's log settings (text or json;
	// debug…error), which child processes (local) are given so that their
	// lines read like the parent's; empty: the child's own default.
	LogFormat, LogLevel string
	// Metrics is the poller's registry, on which a driver registers the
	// series it produces itself; nil: no metrics.
	Metrics prometheus.Registerer
}
