package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// TestStdinHint checks that a command about to wait for an event on a
// terminal says so, and stays quiet when the input is not a terminal or
// the event comes from a file.
func TestStdinHint(t *testing.T) {
	cfg := filepath.Join("..", "..", "examples", ".fullsend")
	ev := filepath.Join("..", "..", "examples", "events", "triage-comment.json")
	cases := []struct {
		name     string
		args     []string
		terminal bool
		hint     string
	}{
		{"dispatch on a terminal", []string{"dispatch"}, true, "or pass --input-file FILE"},
		{"dispatch dash on a terminal", []string{"dispatch", "--input-file", "-"}, true, "or pass --input-file FILE"},
		{"dispatch from a pipe", []string{"dispatch"}, false, ""},
		{"dispatch from a file", []string{"dispatch", "--input-file", ev}, true, ""},
		{"event validate -", []string{"event", "validate", "-"}, true, "or give a FILE instead of -"},
		{"event validate FILE", []string{"event", "validate", ev}, true, ""},
		{"run --event-file -", []string{"run", "--harness", "triage", "--event-file", "-", "--poll-lock", ""}, true, "or pass --event-file FILE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			app := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
				Getenv: func(string) string { return "" }, StdinIsTerminal: tc.terminal}
			Run(context.Background(), app, append([]string{"--config-dir", cfg}, tc.args...))
			got := strings.Contains(errb.String(), "reading a NormalizedEvent from standard input; end with Ctrl-D")
			if got != (tc.hint != "") || !strings.Contains(errb.String(), tc.hint) {
				t.Errorf("stderr %q: want hint %v (%q)", errb.String(), tc.hint != "", tc.hint)
			}
		})
	}
}

// TestSignalEndsStdinRead cancels the context (as cmd/fullsend does on a
// signal) while a command waits on a standard input that never delivers:
// the command ends with 128+signal.
func TestSignalEndsStdinRead(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cfg := filepath.Join("..", "..", "examples", ".fullsend")
	cases := []struct {
		name string
		args []string
		sig  syscall.Signal
		want int
	}{
		{"dispatch SIGINT", []string{"dispatch"}, syscall.SIGINT, ExitInterrupted},
		{"event validate SIGTERM", []string{"event", "validate", "-"}, syscall.SIGTERM, ExitTerminated},
		{"run SIGINT", []string{"run", "--harness", "triage", "--event-file", "-", "--poll-lock", ""}, syscall.SIGINT, ExitInterrupted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, w := io.Pipe()
			defer w.Close() // releases the reader goroutine
			var errb bytes.Buffer
			ctx, cancel := context.WithCancelCause(context.Background())
			reading := &signalOnRead{r: r, fire: func() { cancel(Signal{Signal: tc.sig}) }}
			app := &App{Stdin: reading, Stdout: io.Discard, Stderr: &errb, Getenv: func(string) string { return "" }}
			if got := Run(ctx, app, append([]string{"--config-dir", cfg}, tc.args...)); got != tc.want {
				t.Errorf("exit code %d, want %d (stderr %q)", got, tc.want, errb.String())
			}
			word := map[syscall.Signal]string{syscall.SIGINT: "interrupted (SIGINT)", syscall.SIGTERM: "terminated (SIGTERM)"}[tc.sig]
			if msg := errb.String(); !strings.Contains(msg, "standard input: "+word) || strings.Contains(msg, "context canceled") {
				t.Errorf("stderr %q: want %q, never context canceled", msg, "standard input: "+word)
			}
		})
	}
}

// signalOnRead fires once the first read has started, then blocks in r.
type signalOnRead struct {
	r    io.Reader
	fire func()
}

func (s *signalOnRead) Read(p []byte) (int, error) {
	s.fire()
	return s.r.Read(p)
}

func TestSignalExitKeepsChosenCodes(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(Signal{Signal: syscall.SIGTERM})
	cases := []struct {
		name string
		err  error
		want int
		ok   bool
	}{
		{"graceful", nil, 0, false},
		{"failure", io.ErrUnexpectedEOF, ExitTerminated, true},
		{"usage", UserError(io.EOF), ExitTerminated, true},
		{"agent code", &ExitError{Code: 1, Final: true, Err: io.EOF}, 1, true},
		{"lost lock", &ExitError{Code: ExitLostLock, Err: io.EOF}, ExitLostLock, true},
	}
	for _, tc := range cases {
		code, ok := signalExit(ctx, tc.err)
		if code != tc.want || ok != tc.ok {
			t.Errorf("%s: signalExit = %d, %v; want %d, %v", tc.name, code, ok, tc.want, tc.ok)
		}
	}
	if _, ok := signalExit(context.Background(), io.EOF); ok {
		t.Error("no signal: signalExit must not apply")
	}
}

// A signal ends one `poll` cycle with 128+signal, while `poll --watch`
// stops gracefully with 0 (docs/cli.md).
func TestSignalPollExit(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"poll"}, ExitTerminated},
		{[]string{"poll", "--watch", "--interval", "1s"}, ExitOK},
	}
	for _, tc := range cases {
		f := newPollFixture(t)
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(Signal{Signal: syscall.SIGTERM})
		var errb bytes.Buffer
		app := &App{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errb, Getenv: func(k string) string { return f.env[k] }}
		if got := Run(ctx, app, append([]string{"--config-dir", f.dir}, tc.args...)); got != tc.want {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, got, tc.want, errb.String())
		}
	}
}
