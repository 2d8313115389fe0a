package chaos_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
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
	gs := githubsim.New(githubsim.Options{Token: ghToken, Repos: []githubsim.Repo{{FullName: ghRepo, DefaultBranch: "main",
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

func (w *githubWorld) binary() string                       { return w.bin }
func (w *githubWorld) configDir(*testing.B) string          { return w.dir }
func (w *githubWorld) start(context.Context, forgeRun) bool { return true }

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
			active: r.Status == githubsim.StatusInProgress}
		if ev.Transition.Comment != nil {
			fr.comment, _ = strconv.ParseInt(ev.Transition.Comment.ID, 10, 64)
		}
		out = append(out, fr)
	}
	return out
}

func (w *githubWorld) begin(r forgeRun) error { return w.gs.StartRun(r.id) }

func (w *githubWorld) finish(r forgeRun) error {
	if cur, ok := w.gs.Run(r.id); !ok || cur.Status != githubsim.StatusInProgress {
		return nil // cancelled meanwhile
	}
	return w.gs.CompleteRun(r.id, githubsim.ConclusionSuccess)
}
