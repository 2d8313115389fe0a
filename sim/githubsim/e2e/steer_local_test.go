package e2e_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/runner"
	"github.com/fullsend-dev/fullsend/internal/steer/localsteer"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// A child of the local executor steers from its scope's pending file: the
// GitHub item's follow-up that waits behind it is delivered and recorded,
// and the pending run exits without its agent.
func TestSteerLocalExecutorOnAGitHubItem(t *testing.T) {
	w := newSteerWorld(t, 1, "{enabled: true}")
	w.comment(t, "alice", "/fs-triage the importer drops rows")
	c2 := w.comment(t, "alice", "/fs-triage also handle the retries")
	runs := w.runs() // the runs' inputs are what the executor would hand its children
	dir, err := localsteer.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	scopeKey := runs[0].Inputs[plan.InSerializationKey]
	if err := dir.Pending(scopeKey, idemKey(t, runs[1])); err != nil {
		t.Fatal(err)
	}
	exec := func(r int) runner.Outcome {
		env := map[string]string{localsteer.EnvQueue: dir.Path(scopeKey), "FULLSEND_IDEMPOTENCY_KEY": idemKey(t, runs[r]),
			"FULLSEND_NORMALIZED_EVENT": runs[r].Inputs[plan.InNormalizedEvent], "FULLSEND_AGENT": "triage"}
		for k, v := range w.env {
			env[k] = v
		}
		var logs syncio.Buffer
		out, err := runner.Execute(context.Background(), runner.Request{ConfigDir: w.dir,
			Getenv: func(k string) string { return env[k] }, Stdin: strings.NewReader(""), Stdout: &logs, Stderr: &logs,
			Log: slog.New(slog.NewTextHandler(&logs, nil)), Signals: func() (<-chan os.Signal, func()) { return nil, func() {} },
			SteerTicks: make(chan time.Time)})
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("run %d: %+v %v\n%s", r, out, err, logs.String())
		}
		return out
	}
	if out := exec(0); out.Skipped {
		t.Fatal("the active run was skipped")
	}
	if n := w.replies(t, "triage", c2); n != 1 {
		t.Fatalf("%d records, want 1", n)
	}
	dir.Started(scopeKey) // the executor starts the pending run
	_ = os.Remove(w.env["STEER_RAN"])
	if out := exec(1); !out.Skipped {
		t.Fatal("the pending run was not skipped")
	}
	if _, err := os.Stat(w.env["STEER_RAN"]); err == nil {
		t.Fatal("the pending run started its agent")
	}
}

// idemKey is the idempotency key a run's work_item input carries.
func idemKey(t *testing.T, r githubsim.Run) string {
	t.Helper()
	var wi plan.WorkItem
	if err := json.Unmarshal([]byte(r.Inputs[plan.InWorkItem]), &wi); err != nil || wi.IdempotencyKey == "" {
		t.Fatalf("run %d carries no key: %v", r.ID, err)
	}
	return wi.IdempotencyKey
}
