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
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// gitlabWorld: gitlab-poll pollers and the gitlab-event webhook path
// (a trigger pipeline's `fullsend dispatch`) against gitlabsim, where
// each scope's agent jobs share a resource group (process mode unordered
// until the driver sets newest_first; GitLab keeps every waiting job),
// and each job runs the agent job's superseded check before its agent.
type gitlabWorld struct {
	b     *testing.B
	bin   string
	gs    *gitlabsim.Server
	base  string
	mrs   []int64
	alice int64
	dir   string
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
			admitted: p.Status == gitlabsim.StatusPending, active: p.Status == gitlabsim.StatusRunning,
			cancelled: p.Status == gitlabsim.StatusCanceled || p.Status == gitlabsim.StatusSkipped}
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

func (w *gitlabWorld) begin(r forgeRun) error {
	p, _ := w.gs.Pipeline(r.id)
	return w.gs.StartJob(p.JobID)
}

// start is the agent job's start-up check as `fullsend run` makes it
// (glapi.CheckSuperseded), in the environment the pipeline
// gives the job: GitLab's variables and the pipeline's.
func (w *gitlabWorld) start(ctx context.Context, r forgeRun) bool {
	p, ok := w.gs.Pipeline(r.id)
	if !ok {
		return false
	}
	env := map[string]string{"GITLAB_TOKEN": w.gs.Token(), "CI_API_V4_URL": w.base, "CI_PROJECT_ID": ghRepo,
		"CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_ID": strconv.FormatInt(r.id, 10)}
	for k, v := range p.Variables {
		env[k] = v
	}
	yield, _, err := glapi.CheckSuperseded(ctx, func(k string) string { return env[k] }, glapi.Options{})
	return mayStart(r, yield, err)
}

func (w *gitlabWorld) running(r forgeRun) bool {
	p, ok := w.gs.Pipeline(r.id)
	return ok && p.Status == gitlabsim.StatusRunning
}

func (w *gitlabWorld) finish(r forgeRun) error {
	p, ok := w.gs.Pipeline(r.id)
	if !ok || (p.Status != gitlabsim.StatusPending && p.Status != gitlabsim.StatusRunning) {
		return nil // cancelled meanwhile
	}
	return w.gs.FinishJob(p.JobID, gitlabsim.StatusSuccess)
}

func (w *gitlabWorld) requests() (int, string) {
	return w.gs.CallsTotal(), "API requests the emulator served (it counts no rate limit)"
}
