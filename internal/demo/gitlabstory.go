package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// dispatchArgs is the command line of the generated fullsend-dispatch job.
var dispatchArgs = []string{"dispatch", "--input-driver", "gitlab-event", "--output-driver", "gitlab-pipeline"}

// deliver plays one webhook delivery: GitLab's trigger pipeline runs the
// dispatch job on body. It returns the exit code and the job's log.
func (d *demo) deliver(ctx context.Context, body []byte) (int, string, error) {
	g := d.w.gl
	env, err := g.triggerEnv(d.w.env, body)
	if err != nil {
		return 0, "", err
	}
	code, _, errs := d.runIn(ctx, g.dir, env, dispatchArgs...)
	return code, errs, nil
}

// noted is a note on the merge request and the delivery of its webhook.
type noted struct {
	note gitlabsim.Note
	hook []byte // the webhook body GitLab sent for it
	code int    // the dispatch job's exit code
	log  string // and its standard error
}

// noteOnMR has author note text on the merge request, then delivers the
// webhook GitLab sends for it to a trigger pipeline.
func (d *demo) noteOnMR(ctx context.Context, author gitlabsim.User, text string) (noted, error) {
	g := d.w.gl
	note, hook, err := g.sim.AddNote(glProject, gitlabsim.NoteableMergeRequest, g.mrIID, author.ID, text)
	if err != nil {
		return noted{}, err
	}
	code, log, err := d.deliver(ctx, hook)
	return noted{note: note, hook: hook, code: code, log: log}, err
}

// gitlab is the GitLab scene: a maintainer's /fs-review note on a merge
// request reaches fullsend as a webhook body in a trigger pipeline.
func (d *demo) gitlab(ctx context.Context) error {
	g := d.w.gl
	d.printf("\n8. GitLab: Mia (maintainer) notes \"/fs-review please\" on merge request !%d; the project webhook calls the\n"+
		"   pipeline trigger and the trigger pipeline runs `fullsend %s`.\n", g.mrIID, strings.Join(dispatchArgs, " "))
	n, err := d.noteOnMR(ctx, g.mia, "/fs-review please")
	if err != nil {
		return err
	}
	note, hook, code, log := n.note, n.hook, n.code, n.log
	ps := g.sim.Pipelines(glProject)
	key, agent := "", ""
	if len(ps) == 1 {
		key, agent = ps[0].Variables["FULLSEND_SERIALIZATION_KEY"], ps[0].Variables["FULLSEND_AGENT"]
		d.printf("    agent pipeline %d (%s): FULLSEND_AGENT=%s FULLSEND_SERIALIZATION_KEY=%s\n", ps[0].ID, ps[0].Status, agent, key)
	}
	eyes := g.eyesOn(note.ID)
	d.printf("    acknowledged on the note: %s by %s (what Mia sees at once)\n", english.Count(eyes, "👀 eyes award"), g.bot.Username)
	d.check("GitLab note started one agent pipeline in the merge request's scope, acknowledged with one 👀",
		code == 0 && len(ps) == 1 && key == glScopeKey && agent == "review" && eyes == 1,
		"exit %d, %s, scope %q, %s%s", code, english.Count(len(ps), "pipeline"), key, english.Count(eyes, "eyes award"), failTail(code, log))

	d.printf("\n9. GitLab delivers the same webhook twice more (a retry, then \"Resend request\"). Each delivery creates a\n" +
		"   pipeline carrying the same change (its idempotency key), finds the older pipeline with that key and\n" +
		"   cancels its own: the change runs once.\n")
	for i := 0; i < 2; i++ {
		if code, log, err = d.deliver(ctx, hook); err != nil {
			return err
		}
		if code != 0 {
			break
		}
	}
	st := strings.Join(g.statuses(), ", ")
	d.printf("    pipelines of %s, oldest first: %s; the note still has %s\n", glProject, st, english.Count(g.eyesOn(note.ID), "👀 eyes award"))
	d.check("redelivered webhook settled: the first pipeline of the change kept, each redelivery's cancelled, one 👀",
		code == 0 && st == "pending, canceled, canceled" && g.eyesOn(note.ID) == 1, "exit %d, statuses %s%s", code, st, failTail(code, log))
	return d.gitlabRefusals(ctx)
}

// gitlabRefusals shows an outsider's note denied and a forged payload
// refused before anything is dispatched.
func (d *demo) gitlabRefusals(ctx context.Context) error {
	g := d.w.gl
	before := len(g.sim.Pipelines(glProject))
	d.printf("\n10. Oscar (not a project member) notes \"/fs-review\" on !%d.\n", g.mrIID)
	out, err := d.noteOnMR(ctx, g.osc, "/fs-review")
	if err != nil {
		return err
	}
	hook, code, log := out.hook, out.code, out.log
	verdict, reason := decision(log)
	n := len(g.sim.Pipelines(glProject)) - before
	d.check("GitLab outsider denied", code == 0 && verdict == "denied" && n == 0,
		"exit %d, verdict %s (%s), %s", code, verdict, reason, english.Count(n, "new pipeline"))

	d.printf("\n11. Someone holding the trigger token posts Oscar's note again, edited to claim Mia wrote it.\n")
	forged, err := forgeAuthor(hook, g.mia)
	if err != nil {
		return err
	}
	code, log, err = d.deliver(ctx, forged)
	if err != nil {
		return err
	}
	n = len(g.sim.Pipelines(glProject)) - before
	d.printf("    %s\n", lastLine(log))
	d.check("forged GitLab payload refused with exit 2", code == 2 && n == 0, "exit %d, %s", code, english.Count(n, "new pipeline"))
	return nil
}

// forgeAuthor rewrites a note webhook body so that it claims u wrote it.
func forgeAuthor(hook []byte, u gitlabsim.User) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(hook, &doc); err != nil {
		return nil, err
	}
	attrs, ok := doc["object_attributes"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("note webhook without object_attributes")
	}
	attrs["author_id"] = u.ID
	doc["user"] = map[string]any{"id": u.ID, "username": u.Username, "name": u.Name}
	return json.Marshal(doc)
}

// decision returns the verdict and reason of the "decision" log record.
func decision(log string) (verdict, reason string) {
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		var r struct {
			Msg     string `json:"msg"`
			Verdict string `json:"verdict"`
			Reason  string `json:"reason"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Msg == "decision" {
			return r.Verdict, r.Reason
		}
	}
	return "", ""
}

// failTail is the last log line of a command that failed, for a check's
// detail.
func failTail(code int, log string) string {
	if code == 0 {
		return ""
	}
	return "; " + lastLine(log)
}
