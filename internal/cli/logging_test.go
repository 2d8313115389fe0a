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
