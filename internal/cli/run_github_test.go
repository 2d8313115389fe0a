package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

const ghRunToken = "ghs_runCheckToken"

// ghRunWorld is a GitHub emulator whose fullsend-run.yml has the
// generated concurrency group, and the runs of issue 41's triage scope
// dispatched to it without a settle (as a dispatcher that has not
// settled yet, or died, leaves them).
type ghRunWorld struct {
	sim *githubsim.Server
	url string
	ev  *event.Event
	sk  scope.Key
}

func newGHRunWorld(t *testing.T) *ghRunWorld {
	t.Helper()
	wf := githubsim.Workflow{File: "fullsend-run.yml", Inputs: plan.Names,
		Concurrency: func(in map[string]string) string { return ghactions.CallerPrefix + in[plan.InSerializationKey] }}
	sim := githubsim.New(githubsim.Options{Token: ghRunToken, Repos: []githubsim.Repo{{FullName: "acme/platform",
		DefaultBranch: "main", Workflows: []githubsim.Workflow{wf}}}})
	u, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		sim.Close()
	})
	ev := &event.Event{Repo: "acme/platform",
		Entity: event.Entity{Kind: event.KindWorkItem, ID: 41, URL: "https://github.com/acme/platform/issues/41"},
		Transition: event.Transition{Kind: event.CommentAdded,
			Comment: &event.Comment{ID: "2500000001", Command: "/fs-triage", Body: "/fs-triage check"}},
		Actor: event.Actor{ID: "1201", Kind: event.ActorHuman, Role: event.RoleWrite}, State: event.State{Labels: []string{}},
		Source: event.Source{System: event.SystemGitHub, RawType: "issue_comment", RawAction: "created"}}
	return &ghRunWorld{sim: sim, url: u, ev: ev, sk: scope.KeyOf("triage", ev, "github")}
}

// runOf is the triage run of the change made s seconds ago.
func (w *ghRunWorld) runOf(s int) plan.Run {
	at := time.Now().Add(-time.Duration(s) * time.Second).UTC().Truncate(time.Millisecond)
	return plan.Run{Harness: "triage", Role: "triage", Event: w.ev, Key: w.sk, Workflow: "fullsend-run.yml",
		WorkItem: plan.WorkItem{URL: w.ev.Entity.URL, Source: "github",
			IdempotencyKey: changepos.Key(string(w.sk), changepos.Pos{At: at, ID: int64(100 - s)})}}
}

// dispatch creates r's run (workflow_dispatch, no settle) and returns its id.
func (w *ghRunWorld) dispatch(t *testing.T, r plan.Run) int64 {
	t.Helper()
	var out struct {
		ID int64 `json:"workflow_run_id"`
	}
	w.post(t, "/actions/workflows/fullsend-run.yml/dispatches",
		map[string]any{"ref": "main", "inputs": r.Inputs(), "return_run_details": true}, &out)
	if out.ID == 0 {
		t.Fatal("dispatch: no run id")
	}
	return out.ID
}

// rerun re-runs run id (POST …/rerun), as a person or a settle does.
func (w *ghRunWorld) rerun(t *testing.T, id int64) {
	t.Helper()
	w.post(t, "/actions/runs/"+strconv.FormatInt(id, 10)+"/rerun", map[string]any{}, nil)
}

func (w *ghRunWorld) post(t *testing.T, path string, in, out any) {
	t.Helper()
	body, _ := json.Marshal(in)
	req, _ := http.NewRequest(http.MethodPost, w.url+"/repos/acme/platform"+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+ghRunToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s", path, resp.Status)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// env is the run job's environment for run id of r, as fullsend-run.yml
// sets it: every input as FULLSEND_<NAME>, GitHub's own variables.
func (w *ghRunWorld) env(r plan.Run, id int64, attempt int) map[string]string {
	env := map[string]string{"GITHUB_API_URL": w.url, "GITHUB_TOKEN": ghRunToken, "GITHUB_REPOSITORY": "acme/platform",
		"GITHUB_RUN_ID": strconv.FormatInt(id, 10), "GITHUB_RUN_ATTEMPT": strconv.Itoa(attempt),
		"GITHUB_WORKFLOW_REF": "acme/platform/.github/workflows/fullsend-run.yml@refs/heads/main", "PATH": os.Getenv("PATH")}
	for k, v := range r.Inputs() {
		env[plan.EnvVar(k)] = v
	}
	return env
}

// TestRunExitsEarlyWhenRedundantOnGitHub: inside a GitHub Actions run of
// a GitHub change, `fullsend run` starts its agent only when its
// dispatchers' settle would keep its run. GitHub may start a run before
// its dispatcher settled it (or after the dispatcher died), so the run
// applies the rule itself: a run of a change another run already ran, or
// of a change older than one a live run of the scope carries, exits 0
// without its agent.
func TestRunExitsEarlyWhenRedundantOnGitHub(t *testing.T) {
	cfgDir := filepath.Join("..", "..", "examples", ".fullsend")
	cases := []struct {
		name  string
		setup func(t *testing.T, w *ghRunWorld) (plan.Run, int64) // ours, started
		ran   bool
	}{
		{"a second run of a change another run ran", func(t *testing.T, w *ghRunWorld) (plan.Run, int64) {
			r := w.runOf(30)
			first := w.dispatch(t, r)
			must(t, w.sim.StartRun(first))
			must(t, w.sim.CompleteRun(first, githubsim.ConclusionSuccess))
			return r, w.dispatch(t, r)
		}, false},
		{"an older change's run, a newer change's run waiting behind it", func(t *testing.T, w *ghRunWorld) (plan.Run, int64) {
			older := w.runOf(30)
			id := w.dispatch(t, older)
			w.dispatch(t, w.runOf(10))
			return older, id
		}, false},
		{"the newest change's first run", func(t *testing.T, w *ghRunWorld) (plan.Run, int64) {
			old := w.dispatch(t, w.runOf(30))
			must(t, w.sim.StartRun(old))
			must(t, w.sim.CompleteRun(old, githubsim.ConclusionSuccess))
			r := w.runOf(10)
			return r, w.dispatch(t, r)
		}, true},
		{"a re-run of a change's run: the earlier attempt is no duplicate", func(t *testing.T, w *ghRunWorld) (plan.Run, int64) {
			r := w.runOf(30)
			first := w.dispatch(t, r)
			must(t, w.sim.StartRun(first))
			must(t, w.sim.CompleteRun(first, githubsim.ConclusionSuccess))
			second := w.dispatch(t, r)
			must(t, w.sim.StartRun(second))
			must(t, w.sim.CompleteRun(second, githubsim.ConclusionSuccess))
			w.rerun(t, first) // by hand, after both ended
			return r, first
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newGHRunWorld(t)
			r, id := tc.setup(t, w)
			must(t, w.sim.StartRun(id)) // GitHub started it: it holds the scope's group
			attempt := 1
			if cur, _ := w.sim.Run(id); cur.Attempt > 1 {
				attempt = cur.Attempt
			}
			marker := filepath.Join(agentWritableDir(t), "ran")
			code, out, errs := runCLI(t, "", w.env(r, id, attempt), "run", "--config-dir", cfgDir, "--log-format", "json", "--", "touch", marker)
			if code != 0 {
				t.Fatalf("exit %d: %q %q", code, out, errs)
			}
			if _, err := os.Stat(marker); (err == nil) != tc.ran {
				t.Fatalf("agent ran = %v, want %v (stderr %q)", err == nil, tc.ran, errs)
			}
		})
	}
}
