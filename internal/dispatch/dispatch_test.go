package dispatch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/core"
	"github.com/fullsend-dev/fullsend/internal/output"
)

func TestRun(t *testing.T) {
	cfgDir := filepath.Join("..", "..", "examples", ".fullsend")
	ev, err := os.ReadFile(filepath.Join("..", "..", "examples", "events", "triage-comment.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		o         Options
		env       map[string]string
		stdin     string
		want      string // in stdout
		invalid   bool
		eventErr  bool
		errSubstr string
	}{
		{name: "json to plan", o: Options{OutputDriver: "json"}, stdin: string(ev), want: `"agent":"triage"`},
		{name: "matrix", o: Options{OutputDriver: "gha-matrix"}, stdin: string(ev), want: `"include"`},
		{name: "bad event", o: Options{OutputDriver: "json"}, stdin: `{"repo":1}`, invalid: true, eventErr: true},
		{name: "unknown input", o: Options{InputDriver: "xml", OutputDriver: "json"}, invalid: true, errSubstr: `--input-driver "xml": want json, gha-event or gitlab-event`},
		{name: "event name needs gha-event", o: Options{EventName: "issues", OutputDriver: "json"}, invalid: true, errSubstr: "--event-name is for --input-driver gha-event"},
		{name: "gha-event by default under Actions", o: Options{OutputDriver: "json"}, env: map[string]string{"GITHUB_EVENT_PATH": "/nonexistent/event.json"}, invalid: true},
		{name: "unknown output", o: Options{OutputDriver: "carrier-pigeon"}, stdin: string(ev), invalid: true, errSubstr: "carrier-pigeon"},
		{name: "bad repo", o: Options{OutputDriver: "json", Repo: "a/../b"}, stdin: string(ev), invalid: true, errSubstr: "--repo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout bytes.Buffer
			o := tc.o
			o.ConfigDir, o.Stdin = cfgDir, strings.NewReader(tc.stdin)
			o.Output = output.Env{Getenv: func(k string) string { return tc.env[k] }, Stdout: &stdout}
			err := Run(context.Background(), o)
			var ee *EventError
			switch {
			case !tc.invalid && err != nil:
				t.Fatal(err)
			case tc.invalid && !config.IsInvalid(err):
				t.Fatalf("err = %v, want the user's error", err)
			case tc.eventErr != errors.As(err, &ee):
				t.Fatalf("err = %v: EventError %v, want %v", err, ee != nil, tc.eventErr)
			case tc.errSubstr != "" && !strings.Contains(err.Error(), tc.errSubstr):
				t.Fatalf("err = %v, want %q", err, tc.errSubstr)
			}
			if !strings.Contains(stdout.String(), tc.want) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tc.want)
			}
		})
	}
}

// A harness whose trigger could not decide the event fails the command
// (exit 1, not the user's input) and is named with its file; none is nil.
func TestTriggerErrors(t *testing.T) {
	if err := triggerErrors(nil); err != nil {
		t.Fatalf("triggerErrors(nil) = %v", err)
	}
	err := triggerErrors([]core.HarnessError{{Harness: "greedy", File: "harness/greedy.yaml", Err: errors.New("runtime cost limit of 10 exceeded")}})
	want := "1 trigger(s) could not decide the event (the other harnesses were handled)\nharness greedy (harness/greedy.yaml): runtime cost limit of 10 exceeded"
	if err == nil || err.Error() != want || config.IsInvalid(err) {
		t.Errorf("triggerErrors = %v; want %q, not the user's input", err, want)
	}
}
