package ghactions

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows"
)

// forkGuard matches a job condition that runs the job only for pull
// requests whose head is this repository. It fails closed: the head
// repository of a deleted fork is null, which is not equal either.
// (head.repo.fork is not accepted: it is null, hence falsy, for a deleted
// fork.)
var forkGuard = regexp.MustCompile(`github\.event\.pull_request\.head\.repo\.full_name\s*==\s*github\.repository\b|` +
	`github\.repository\s*==\s*github\.event\.pull_request\.head\.repo\.full_name\b`)

// headRef matches a checkout ref or repository that names the pull
// request's head, i.e. code the pull request's author controls.
var headRef = regexp.MustCompile(`github\.event\.pull_request\.head\.|github\.head_ref\b|refs/pull/`)

// forkTriggers start runs for fork pull requests with no secrets and a
// read-only token; a fullsend dispatch there fails, so it must skip forks.
var forkTriggers = []string{"pull_request", "pull_request_review", "pull_request_review_comment"}

// forkFindings applies the fork rules of docs/security.md to w. Under
// pull_request_target (which runs the base branch's workflow for fork pull
// requests with the repository's secrets and a write token), no step may
// check out the head, and a job that reads a secret must skip forks. Under
// the pull request triggers, a job that runs `fullsend dispatch` must skip
// forks so that a fork's event ends cleanly instead of failing.
func forkFindings(w *workflow) []workflows.Finding {
	var out []workflows.Finding
	at := func(line int, format string, a ...any) {
		out = append(out, workflows.Finding{File: w.file, Line: line, Message: fmt.Sprintf(format, a...)})
	}
	target := w.triggers["pull_request_target"]
	forks := false
	for _, t := range forkTriggers {
		forks = forks || w.triggers[t]
	}
	for _, j := range w.jobs {
		guarded := forkGuard.MatchString(j.cond)
		if target {
			for _, s := range j.steps {
				if n := headCheckout(s); n != nil {
					at(n.Line, "job %q checks out the pull request's head (%s) under pull_request_target: a fork's code "+
						"would run with the repository's secrets and a write token; check out the base branch (drop ref:)",
						j.id, strings.TrimSpace(n.Value))
				}
			}
			if !guarded && readsSecrets(j) {
				at(j.line, "job %q reads secrets under pull_request_target, which also runs for fork pull requests; "+
					"skip forks with `if: github.event.pull_request.head.repo.full_name == github.repository`", j.id)
			}
		}
		if forks && j.runsDispatch && !guarded {
			at(j.line, "job %q runs fullsend dispatch on pull request events without skipping forks: a fork's run has "+
				"no secrets and a read-only token, so the dispatch fails; add `if: github.event_name != 'pull_request' "+
				"|| github.event.pull_request.head.repo.full_name == github.repository` (and the same for reviews)", j.id)
		}
	}
	return out
}

// headCheckout returns the ref or repository value of a checkout step
// that names the pull request's head, else nil.
func headCheckout(step *yaml.Node) *yaml.Node {
	_, u := workflows.MapEntry(step, "uses")
	if u == nil || !strings.HasPrefix(u.Value, "actions/checkout@") {
		return nil
	}
	_, with := workflows.MapEntry(step, "with")
	for _, key := range []string{"ref", "repository"} {
		if _, v := workflows.MapEntry(with, key); v != nil && v.Kind == yaml.ScalarNode && headRef.MatchString(v.Value) {
			return v
		}
	}
	return nil
}

// readsSecrets reports whether j hands any secret to its steps or to a
// called workflow.
func readsSecrets(j *job) bool {
	if j.secrets != nil || len(secretEnv(j.env)) > 0 {
		return true
	}
	for _, s := range j.steps {
		if _, env := workflows.MapEntry(s, "env"); len(secretEnv(env)) > 0 {
			return true
		}
		if _, with := workflows.MapEntry(s, "with"); len(secretEnv(with)) > 0 {
			return true
		}
	}
	return false
}
