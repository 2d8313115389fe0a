package cli

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// With the local executor, the poller's /metrics carries the isolation
// counter the executor registers (all three modes, from 0).
func TestPollMetricsCountLocalRunIsolation(t *testing.T) {
	f := newPollFixture(t) // no issues: nothing is dispatched, no child runs
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	errb, done := newNotifyBuffer(), make(chan int, 1)
	app := &App{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: errb, Getenv: func(k string) string { return f.env[k] }}
	go func() {
		done <- Run(ctx, app, []string{"--config-dir", f.dir, "--log-format", "json", "poll", "--watch", "--interval", "20ms",
			"--output-driver", "local", "--metrics-addr", "127.0.0.1:0"})
	}()
	errb.waitFor(t, func(s string) bool { return strings.Contains(s, `"msg":"poll cycle"`) })
	m := regexp.MustCompile(`"msg":"serving metrics","addr":"([^"]+)"`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no metrics address logged: %s", errb.String())
	}
	resp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, mode := range []string{"user", "none", "unavailable"} {
		if want := `fullsend_run_isolation_total{mode="` + mode + `"} 0`; !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after a stop signal; stderr %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("poll --watch did not stop")
	}
}
