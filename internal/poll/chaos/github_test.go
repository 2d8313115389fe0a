package chaos_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/workflows/ghactions"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

const ghRepo = "acme/platform"

// githubWorld: github-poll pollers and the events workflow's gha-event
// path against githubsim, whose run workflow has the generated
// workflow's concurrency group (fullsend-run- and the scope key,
// cancel-in-progress: false).
type githubWorld struct {
	b      *testing.B
	bin    string
	gs     *githubsim.Server
	url    string
	issues []int
	dir    string
}

func newGitHubWorld(b *testing.B) *githubWorld {
	wf := githubsim.Workflow{File: "fullsend-run.yml",
		Concurrency: func(in map[string]string) string { return ghactions.CallerPrefix + in[plan.InSerializationKey] }}
	// The rate limit is lifted: the benchmark's comment rate would spend
	// a token's hourly budget within minutes; the points are reported.
	gs := githubsim.New(githubsim.Options{Token: ghToken, RateLimit: math.MaxInt32, Repos: []githubsim.Repo{{FullName: ghRepo, DefaultBranch: "main",
		Workflows: []githubsim.Workflow{wf}}}})
	u, err := gs.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(gs.Close)
	if err := gs.SetPermission(ghRepo, "alice", "maintain"); err != nil {
		b.Fatal(err)
	}
	w := &githubWorld{b: b, bin: build(b), gs: gs, url: u}
	for range *subjects {
		n, _, err := gs.OpenIssue(ghRepo, githubsim.IssueSpec{Title: "chaos", Author: "alice"})
		if err != nil {
			b.Fatal(err)
		}
		w.issues = append(w.issues, n)
	}
	w.dir = forgeConfig(b, "github", "github-poll", u, "gha-dispatch")
	return w
}

func (w *githubWorld) binary() string              { return w.bin }
func (w *githubWorld) configDir(*testing.B) string { return w.dir }

func (w *githubWorld) env() []string {
	return append(os.Environ(), "GITHUB_API_URL="+w.url, "GITHUB_TOKEN="+ghToken, "GITHUB_REF_NAME=main",
		"GITHUB_REPOSITORY="+ghRepo)
}

func (w *githubWorld) comment(i int) (int64, time.Time, func() error) {
	id, d, err := w.gs.AddComment(ghRepo, w.issues[i], "alice", "/fs-triage chaos")
	if err != nil {
		w.b.Fatal(err)
	}
	var p struct {
		Comment struct {
			CreatedAt time.Time `json:"created_at"`
		} `json:"comment"`
	}
	if err := json.Unmarshal(d.Payload, &p); err != nil {
		w.b.Fatal(err)
	}
	return id, p.Comment.CreatedAt, func() error { return w.deliver(d) }
}

// deliver runs the events workflow's step on d: `fullsend dispatch
// --input-driver gha-event --output-driver gha-dispatch`.
func (w *githubWorld) deliver(d githubsim.Delivery) error {
	return dispatchProcess(w.b, w.bin, w.dir, append(w.env(), "GITHUB_EVENT_NAME="+d.Event), "GITHUB_EVENT_PATH", d.Payload,
		"gha-event", "gha-dispatch")
}

func (w *githubWorld) runs() []forgeRun {
	var out []forgeRun
	for _, r := range w.gs.Runs() {
		var wi plan.WorkItem
		_ = json.Unmarshal([]byte(r.Inputs[plan.InWorkItem]), &wi)
		var ev event.Event
		_ = json.Unmarshal([]byte(r.Inputs[plan.InNormalizedEvent]), &ev)
		fr := forgeRun{id: r.ID, scope: r.Inputs[plan.InSerializationKey], key: wi.IdempotencyKey,
			waiting: r.Status == githubsim.StatusPending, admitted: r.Status == githubsim.StatusQueued,
			active: r.Status == githubsim.StatusInProgress, cancelled: r.Conclusion == githubsim.ConclusionCancelled}
		if ev.Transition.Comment != nil {
			fr.comment, _ = strconv.ParseInt(ev.Transition.Comment.ID, 10, 64)
		}
		out = append(out, fr)
	}
	return out
}

func (w *githubWorld) begin(r forgeRun) error { return w.gs.StartRun(r.id) }

// start is the run job's start-up check as `fullsend run` makes it
// (ghadispatch.CheckStart), in the environment fullsend-run.yml gives
// the job: GitHub's variables and every input as FULLSEND_<NAME>.
func (w *githubWorld) start(ctx context.Context, r forgeRun) bool {
	run, ok := w.gs.Run(r.id)
	if !ok {
		return false
	}
	env := map[string]string{"GITHUB_API_URL": w.url, "GITHUB_TOKEN": ghToken, "GITHUB_REPOSITORY": ghRepo,
		"GITHUB_RUN_ID": strconv.FormatInt(r.id, 10), "GITHUB_RUN_ATTEMPT": strconv.Itoa(run.Attempt),
		"GITHUB_WORKFLOW_REF": ghRepo + "/.github/workflows/" + run.Workflow + "@refs/heads/main"}
	for k, v := range run.Inputs {
		env[plan.EnvVar(k)] = v
	}
	yield, _, err := ghadispatch.CheckStart(ctx, func(k string) string { return env[k] }, ghadispatch.Options{})
	return mayStart(r, yield, err)
}

func (w *githubWorld) running(r forgeRun) bool {
	cur, ok := w.gs.Run(r.id)
	return ok && cur.Status == githubsim.StatusInProgress
}

func (w *githubWorld) finish(r forgeRun) error {
	if !w.running(r) {
		return nil // cancelled meanwhile
	}
	return w.gs.CompleteRun(r.id, githubsim.ConclusionSuccess)
}

func (w *githubWorld) requests() (int, string) {
	return w.gs.RatePointsUsed(), "rate-limit points the emulator counted (its limit lifted)"
}
