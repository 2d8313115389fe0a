package chaos_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// gitlabWorld: gitlab-poll pollers and the gitlab-event webhook path
// (a trigger pipeline's `fullsend dispatch`) against gitlabsim, where
// each scope's agent jobs share a resource group (process mode unordered
// until the driver sets newest_first; GitLab keeps every waiting job),
// and each job runs the agent job's superseded check before its agent.
type gitlabWorld struct {
	b      *testing.B
	bin    string
	gs     *gitlabsim.Server
	base   string
	mrs    []int64
	alice  int64
	dir    string
	checks *gitlabpipeline.Driver // the agent job's superseded check
}

func newGitLabWorld(b *testing.B) *gitlabWorld {
	gs := gitlabsim.New(gitlabsim.Options{Projects: []string{ghRepo}})
	base, err := gs.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(gs.Close)
	alice, bot := gs.AddUser("alice", false), gs.AddUser("project_1_bot_chaos", true)
	gs.SetTokenUser(bot.ID)
	if err := gs.SetMember(ghRepo, alice.ID, gitlabsim.AccessMaintainer); err != nil {
		b.Fatal(err)
	}
	w := &gitlabWorld{b: b, bin: build(b), gs: gs, base: base, alice: alice.ID}
	for i := range *subjects {
		m, _, err := gs.CreateMergeRequest(ghRepo, gitlabsim.MergeRequestSpec{SourceBranch: fmt.Sprintf("fix-%d", i),
			TargetBranch: "main", Title: "chaos", AuthorID: alice.ID})
		if err != nil {
			b.Fatal(err)
		}
		w.mrs = append(w.mrs, m.IID)
	}
	w.dir = forgeConfig(b, "gitlab", "gitlab-poll", base, "gitlab-pipeline")
	w.checks, err = gitlabpipeline.New(gitlabpipeline.Options{APIURL: base, Token: gs.Token(), Project: ghRepo, Ref: "main"})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

func (w *gitlabWorld) binary() string              { return w.bin }
func (w *gitlabWorld) configDir(*testing.B) string { return w.dir }

func (w *gitlabWorld) env() []string {
	return append(os.Environ(), "GITLAB_TOKEN="+w.gs.Token(), "GITLAB_API_URL="+w.base, "CI_DEFAULT_BRANCH=main")
}

func (w *gitlabWorld) comment(i int) (int64, time.Time, func() error) {
	n, hook, err := w.gs.AddNote(ghRepo, gitlabsim.NoteableMergeRequest, w.mrs[i], w.alice, "/fs-triage chaos")
	if err != nil {
		w.b.Fatal(err)
	}
	return n.ID, n.CreatedAt, func() error { return w.deliver(hook) }
}

// deliver runs the trigger pipeline's job on the webhook body: `fullsend
// dispatch --input-driver gitlab-event --output-driver gitlab-pipeline`.
func (w *gitlabWorld) deliver(hook []byte) error {
	env := append(w.env(), "CI_PIPELINE_SOURCE=trigger", "CI_API_V4_URL="+w.base, "CI_PROJECT_PATH="+ghRepo)
	return dispatchProcess(w.b, w.bin, w.dir, env, "TRIGGER_PAYLOAD", hook, "gitlab-event", "gitlab-pipeline")
}

func (w *gitlabWorld) runs() []forgeRun {
	var out []forgeRun
	for _, p := range w.gs.Pipelines(ghRepo) {
		fr := forgeRun{id: p.ID, scope: p.Variables[glapi.VarSerializationKey], key: p.Variables[glapi.VarIdempotencyKey],
			waiting:  p.Status == gitlabsim.StatusWaitingForResource || p.Status == gitlabsim.StatusCreated,
			admitted: p.Status == gitlabsim.StatusPending, active: p.Status == gitlabsim.StatusRunning}
		if raw, err := base64.StdEncoding.DecodeString(p.Variables[glapi.VarEvent]); err == nil {
			var ev event.Event
			if json.Unmarshal(raw, &ev) == nil && ev.Transition.Comment != nil {
				fr.comment, _ = strconv.ParseInt(ev.Transition.Comment.ID, 10, 64)
			}
		}
		out = append(out, fr)
	}
	return out
}

// start is the agent job's start-up check (glapi.CheckSuperseded):
// false when a pipeline of a newer change of its scope is live.
func (w *gitlabWorld) start(ctx context.Context, r forgeRun) bool {
	newer, err := w.checks.Superseded(ctx, glapi.ResourceKey(scopeKey(r.scope)), r.id, r.key)
	return err != nil || newer == 0
}

func (w *gitlabWorld) begin(r forgeRun) error {
	p, _ := w.gs.Pipeline(r.id)
	return w.gs.StartJob(p.JobID)
}

func (w *gitlabWorld) finish(r forgeRun) error {
	p, ok := w.gs.Pipeline(r.id)
	if !ok || (p.Status != gitlabsim.StatusPending && p.Status != gitlabsim.StatusRunning) {
		return nil // cancelled meanwhile
	}
	return w.gs.FinishJob(p.JobID, gitlabsim.StatusSuccess)
}

// scopeKey is s as a scope.Key.
func scopeKey(s string) scope.Key { return scope.Key(s) }
