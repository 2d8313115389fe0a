package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestJSONLogsUseMilliseconds(t *testing.T) {
	cases := []struct {
		format string
		want   string
	}{
		{"json", `"wait_ms":1500`},
		{"text", "wait=1.5s"},
	}
	for _, tc := range cases {
		var errb bytes.Buffer
		app := &App{Stderr: &errb, LogFormat: tc.format, LogLevel: "info"}
		if err := app.setupLogging(); err != nil {
			t.Fatal(err)
		}
		app.Log.Info("retrying", "attempt", 2, "wait", 1500*time.Millisecond, "timeout", 30*time.Second)
		if got := errb.String(); !strings.Contains(got, tc.want) {
			t.Errorf("%s log %q lacks %q", tc.format, got, tc.want)
		}
		if tc.format == "json" {
			var rec map[string]any
			if err := json.Unmarshal(errb.Bytes(), &rec); err != nil || rec["timeout_ms"] != 30000.0 || rec["wait"] != nil {
				t.Errorf("json record %v (%v)", rec, err)
			}
		}
	}
}

// The output drivers get the log format in effect (the terminal's default
// when --log-format is not given) and the level, for the children the
// local executor starts.
func TestOutputEnvCarriesTheLogFormat(t *testing.T) {
	cases := []struct {
		flag     string
		terminal bool
		want     string
	}{
		{"", true, "text"},
		{"", false, "json"},
		{"json", true, "json"},
		{"text", false, "text"},
	}
	for _, tc := range cases {
		app := &App{Stderr: &bytes.Buffer{}, LogFormat: tc.flag, LogLevel: "debug", IsTerminal: tc.terminal}
		if err := app.setupLogging(); err != nil {
			t.Fatal(err)
		}
		if env := app.outputEnv(); env.LogFormat != tc.want || env.LogLevel != "debug" {
			t.Errorf("--log-format %q, terminal %v: output env has %q/%q, want %q/debug", tc.flag, tc.terminal, env.LogFormat, env.LogLevel, tc.want)
		}
	}
}
