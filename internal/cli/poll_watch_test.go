package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// closedAddr returns a 127.0.0.1 address nothing listens on: connections
// to it are refused.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// pointAt rewrites the fixture's configuration to poll the Jira at addr,
// with no retries (a refused connection fails the cycle at once).
func (f *pollFixture) pointAt(t *testing.T, addr string) {
	t.Helper()
	p := filepath.Join(f.dir, "config.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`base_url: \S+`)
	cfg := re.ReplaceAllString(string(b), "base_url: http://"+addr+"\n        max_retries: 0")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

func healthz(t *testing.T, addr string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// `poll --watch` started while Jira refuses connections does not exit: it
// backs off (2s, 4s, 8s with --interval 1s), serves /metrics and a
// /healthz that answers 503 with the reason, and once Jira is up its next
// cycle succeeds, /healthz answers 200 and the wait is the interval again.
func TestPollWatchBadStart(t *testing.T) {
	f := newPollFixture(t)
	addr := closedAddr(t)
	f.pointAt(t, addr)
	sleeps, release := make(chan time.Duration), make(chan struct{})
	watchSleep = func(ctx context.Context, d time.Duration) error {
		select {
		case sleeps <- d:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t.Cleanup(func() { watchSleep = nil })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errb := newNotifyBuffer()
	done := make(chan int, 1)
	app := &App{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: errb, Getenv: func(k string) string { return f.env[k] }}
	go func() {
		done <- Run(ctx, app, []string{"--config-dir", f.dir, "--log-format", "json", "poll", "--watch", "--interval", "1s", "--metrics-addr", "127.0.0.1:0"})
	}()
	next := func() time.Duration {
		t.Helper()
		select {
		case d := <-sleeps:
			return d
		case code := <-done:
			t.Fatalf("poll --watch exited %d during a bad start: %s", code, errb.String())
		case <-time.After(10 * time.Second):
			t.Fatalf("no cycle ended within 10s: %s", errb.String())
		}
		return 0
	}
	var metricsAddr string
	for _, want := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if d := next(); d != want {
			t.Fatalf("backoff %s, want %s", d, want)
		}
		if want == 2*time.Second {
			m := regexp.MustCompile(`"msg":"serving metrics","addr":"([^"]+)"`).FindStringSubmatch(errb.String())
			if m == nil {
				t.Fatalf("no metrics address logged: %s", errb.String())
			}
			if code, body := healthz(t, m[1]); code != http.StatusServiceUnavailable || !strings.Contains(body, "the last one failed") || !strings.Contains(body, "connection refused") {
				t.Errorf("/healthz during a bad start: %d %s", code, body)
			}
			metricsAddr = m[1]
		}
		if want == 8*time.Second {
			up := jirasim.New(jirasim.Options{RequiredToken: "s3cret-token", Now: tickingClock(time.Now())})
			up.AddProject("PROJ", "")
			up.SetRole("PROJ", "Developers", "acct-dev")
			if _, err := up.Listen(addr); err != nil {
				t.Skipf("the port was taken meanwhile: %v", err)
			}
			t.Cleanup(up.Close)
		}
		release <- struct{}{}
	}
	if d := next(); d != time.Second {
		t.Fatalf("wait after a good cycle %s, want the interval", d)
	}
	if code, body := healthz(t, metricsAddr); code != http.StatusOK {
		t.Errorf("/healthz after a good cycle: %d %s", code, body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after the stop, want 0", code)
	}
}

// silentJira accepts connections and never answers.
func silentJira(t *testing.T) string {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return strings.TrimPrefix(srv.URL, "http://")
}

// A Jira that never answers fails `fullsend poll` within the configured
// per-request timeout and retry budget, or the cycle deadline, each retry
// logged at info with the attempt, the wait and the reason; nothing waits
// anywhere near the defaults.
func TestPollSilentJira(t *testing.T) {
	cases := []struct {
		name    string
		conn    string
		args    []string
		errHas  string
		retried bool
	}{
		{"request timeout", "timeout: 50ms\n        max_retries: 1", nil, "context deadline exceeded", true},
		{"cycle deadline", "timeout: 10s", []string{"--cycle-timeout", "100ms"}, "exceeded its deadline of 100ms", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newPollFixture(t)
			f.pointAt(t, silentJira(t))
			p := filepath.Join(f.dir, "config.yaml")
			b, _ := os.ReadFile(p)
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), "max_retries: 0", tc.conn, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			code, _, errs := f.run(t, append([]string{"poll"}, tc.args...)...)
			if code != 1 || !strings.Contains(errs, tc.errHas) {
				t.Fatalf("exit %d, want 1 with %q: %s", code, tc.errHas, errs)
			}
			retry := regexp.MustCompile(`"level":"INFO","msg":"jira request failed; retrying","endpoint":"GET /rest/api/3/myself","attempt":1,"wait_ms":[0-9.]+,"reason":"[^"]+"`)
			if retry.MatchString(errs) != tc.retried {
				t.Errorf("retry logged: %v, want %v: %s", !tc.retried, tc.retried, errs)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("poll took %s against a silent Jira", d)
			}
		})
	}
}
