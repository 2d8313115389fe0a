package demo_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cli"
	"github.com/fullsend-dev/fullsend/internal/demo"
)

// TestMain lets this test binary stand in for the fullsend executable: the
// local executor starts `<executable> run …` as a child process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "run" {
		app := &cli.App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
		os.Exit(cli.Run(context.Background(), app, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func exec(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) int {
	app := &cli.App{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr, Getenv: func(k string) string { return env[k] }}
	return cli.Run(ctx, app, args)
}

func TestDemoStoryHolds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	s, err := demo.Run(ctx, demo.Options{Out: &out, Exec: exec})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if s.Dispatched != 5 || s.Duplicates != 0 || s.Denied < 1 || s.Coalesced < 4 || !s.AllOK() {
		t.Fatalf("summary = %+v\n%s", s, out.String())
	}
	if len(s.GitLabPipelines) != 3 {
		t.Errorf("GitLab pipelines %v, want the first delivery's and two redeliveries'", s.GitLabPipelines)
	}
	for _, want := range []string{"below min_role write", "attempt 5", "checks               15 of 15 held", "LOCKS: none", "api calls: 3", "triage agent: working on DEMO-1",
		"review:acme/platform:gitlab:change_proposal:1", "pending, canceled, canceled"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, secret := range []string{"demo-jira-token", "ghs_demoToken", "demo-gitlab-token"} {
		if strings.Contains(out.String(), secret) {
			t.Errorf("demo printed a token")
		}
	}
}
