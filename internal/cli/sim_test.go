package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// startSim runs `fullsend sim args…` until the returned stop is called,
// waiting for want URL lines; it returns name → base URL.
func startSim(t *testing.T, want int, args ...string) (map[string]string, func() int) {
	t.Helper()
	urls, _, stop := startSimOut(t, want, args...)
	return urls, stop
}

// startSimOut is startSim that also returns the command's stdout; the
// "export …" line is not counted as an emulator.
func startSimOut(t *testing.T, want int, args ...string) (map[string]string, *notifyBuffer, func() int) {
	t.Helper()
	out, errOut := newNotifyBuffer(), &syncio.Buffer{}
	app := &App{Stdout: out, Stderr: errOut, Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, app, append([]string{"sim", "--log-format", "text"}, args...)) }()
	timeout := time.After(10 * time.Second) // a safety net: every line is waited for, not timed
	urls := map[string]string{}
	parse := func(s string) bool {
		for _, line := range strings.Split(s, "\n") {
			if name, u, ok := strings.Cut(line, " "); ok && name != "export" {
				urls[name] = u
			}
		}
		return len(urls) >= want
	}
	select {
	case <-out.When(parse):
		return urls, out, func() int { cancel(); return <-done }
	case code := <-done:
		cancel()
		t.Fatalf("sim exited %d early: %s", code, errOut.String())
	case <-timeout:
		cancel()
		t.Fatalf("fewer than %d emulators after 10s; stdout %q; stderr %s", want, out.String(), errOut.String())
	}
	return nil, nil, nil
}

func getJSON(t *testing.T, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestSimServesJiraWithSeed(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	seed := filepath.Join(t.TempDir(), "seed.json")
	os.WriteFile(seed, []byte(`{"myself":"bot","projects":[{"key":"PROJ"}],
		"issues":[{"project":"PROJ","summary":"hello","comments":[{"author":"u1","text":"/fs-triage go"}]}]}`), 0o600)
	urls, stop := startSim(t, 1, "--jira", "--seed", seed)
	if !strings.HasPrefix(urls["jira"], "http://127.0.0.1:") || len(urls) != 1 {
		t.Fatalf("urls = %v", urls)
	}
	code, body := getJSON(t, urls["jira"]+"/rest/api/3/issue/PROJ-1/comment")
	if code != 200 || !strings.Contains(body, "/fs-triage go") {
		t.Errorf("seeded comment: %d %s", code, body)
	}
	code, body = getJSON(t, urls["jira"]+"/rest/api/3/myself")
	if code != 200 || !strings.Contains(body, `"accountId":"bot"`) {
		t.Errorf("myself: %d %s", code, body)
	}
	http.DefaultClient.CloseIdleConnections()
	if code := stop(); code != ExitOK {
		t.Errorf("exit code %d", code)
	}
}

func TestSimServesAllByDefault(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	urls, stop := startSim(t, 3)
	for _, name := range []string{"jira", "github", "gitlab"} {
		if !strings.HasPrefix(urls[name], "http://127.0.0.1:") {
			t.Errorf("%s: %q", name, urls[name])
		}
	}
	if code, _ := getJSON(t, urls["jira"]+"/rest/api/3/myself"); code != 200 {
		t.Errorf("jira myself: %d", code)
	}
	http.DefaultClient.CloseIdleConnections()
	if code := stop(); code != ExitOK {
		t.Errorf("exit code %d", code)
	}
}

func TestSimBadInputExits2(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"projects":[{"key":"1"}]}`), 0o600)
	jiraOnly := filepath.Join(t.TempDir(), "jira.json")
	os.WriteFile(jiraOnly, []byte(`{"projects":[{"key":"PROJ"}]}`), 0o600)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--jira", "--addr", "0.0.0.0:0"}, "loopback only"},
		{[]string{"--jira", "--addr", "example.com:80"}, "loopback only"},
		{[]string{"--jira", "--addr", "nonsense"}, "want host:port"},
		{[]string{"--jira", "--addr", "127.0.0.1:99999"}, "invalid port"},
		{[]string{"--addr", "127.0.0.1:65534"}, "3 emulators need ports 65534 to 65536"},
		{[]string{"--jira", "--seed", bad}, "projects[0]: invalid key"},
		{[]string{"--jira", "--seed", filepath.Join(t.TempDir(), "missing.json")}, "--seed"},
		{[]string{"--github", "--seed", jiraOnly}, "has a jira section; add --jira"},
		{[]string{"--github", "--seed", bad}, "projects[0]: invalid key"},
		{[]string{"--bogus"}, "unknown flag"},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		app := &App{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
		code := Run(context.Background(), app, append([]string{"sim"}, tc.args...))
		if code != ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}
