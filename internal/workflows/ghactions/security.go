package ghactions

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows"
)

// expression is one ${{ ... }} in a script.
var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// untrustedRef matches a context that carries text the workflow's author
// does not control (dispatch and call inputs, event payloads, branch
// names, outputs of other steps and jobs, matrix values) or a secret, which
// must not be pasted into a script either.
var untrustedRef = regexp.MustCompile(`\b(?:inputs\.[A-Za-z0-9_-]+|github\.event\.[A-Za-z0-9_.*'\[\]-]+|github\.head_ref|` +
	`(?:needs|steps)\.[A-Za-z0-9_-]+\.outputs\.[A-Za-z0-9_-]+|matrix\.[A-Za-z0-9_.-]+|secrets\.[A-Za-z0-9_]+)`)

// shaPinned matches an action or workflow reference pinned by commit.
var shaPinned = regexp.MustCompile(`@[0-9a-f]{40}$`)

// securityFindings applies the security rules of docs/security.md to one
// workflow file that runs fullsend.
func securityFindings(w *workflow) []workflows.Finding {
	var out []workflows.Finding
	at := func(line int, format string, a ...any) {
		out = append(out, workflows.Finding{File: w.file, Line: line, Message: fmt.Sprintf(format, a...)})
	}
	for _, k := range secretEnv(w.env) {
		at(k.Line, "workflow env %s holds a secret, so every step of every job sees it; set it in the env of the steps that run fullsend", k.Value)
	}
	out = append(out, forkFindings(w)...)
	for _, j := range w.jobs {
		for _, k := range secretEnv(j.env) {
			at(k.Line, "job %q: env %s holds a secret, so every step (checkout, other actions, the agent) sees it; set it in the env of the steps that run fullsend", j.id, k.Value)
		}
		if j.secrets != nil && j.secrets.Kind == yaml.ScalarNode && j.secrets.Value == "inherit" {
			at(j.secrets.Line, "job %q: secrets: inherit hands the called workflow every secret of the repository; list the secrets it needs under secrets:", j.id)
		}
		if j.uses != "" && !strings.HasPrefix(j.uses, "./") && !shaPinned.MatchString(j.uses) {
			at(j.usesLine, "job %q calls %s by a movable ref; pin the full 40-hex commit SHA", j.id, j.uses)
		}
		for _, s := range j.steps {
			out = append(out, stepFindings(w.file, j.id, s)...)
			out = append(out, execFindings(w, j, s)...)
		}
	}
	return out
}

// secretEnv returns the keys of an env mapping whose value reads secrets.
func secretEnv(env *yaml.Node) []*yaml.Node {
	if env == nil || env.Kind != yaml.MappingNode {
		return nil
	}
	var keys []*yaml.Node
	for i := 0; i+1 < len(env.Content); i += 2 {
		if strings.Contains(env.Content[i+1].Value, "secrets.") {
			keys = append(keys, env.Content[i])
		}
	}
	return keys
}

// stepFindings checks one step: pinned `uses:`, checkout credentials, and
// expressions in `run:`.
func stepFindings(file, jobID string, s *yaml.Node) []workflows.Finding {
	var out []workflows.Finding
	at := func(line int, format string, a ...any) {
		out = append(out, workflows.Finding{File: file, Line: line, Message: fmt.Sprintf(format, a...)})
	}
	if _, u := workflows.MapEntry(s, "uses"); u != nil && u.Kind == yaml.ScalarNode {
		if !pinnedAction(u.Value) {
			at(u.Line, "job %q: uses %s, a movable ref; pin the full 40-hex commit SHA with the version in a comment "+
				"(name@<sha> # vX.Y.Z)", jobID, u.Value)
		}
		if strings.HasPrefix(u.Value, "actions/checkout@") && !persistFalse(s) {
			at(u.Line, "job %q: checkout without persist-credentials: false leaves the token in .git/config, "+
				"where the agent can read it; add with: persist-credentials: false", jobID)
		}
	}
	if _, r := workflows.MapEntry(s, "run"); r != nil && r.Kind == yaml.ScalarNode {
		for i, line := range strings.Split(r.Value, "\n") {
			for _, m := range expression.FindAllStringSubmatch(line, -1) {
				if ref := untrustedRef.FindString(m[1]); ref != "" {
					name := envName(ref)
					at(scriptLine(r, i), "job %q: %s is pasted into the run: script before the shell parses it "+
						"(script injection); pass it through the step's env instead: `env: { %s: %s }` and use \"$%s\" in the script",
						jobID, m[0], name, m[0], name)
				}
			}
		}
	}
	return out
}

// execFindings reports a step holding secrets (in its env, its job's or
// the workflow's) that runs the agent's `fullsend run` without exec.
func execFindings(w *workflow, j *job, s *yaml.Node) []workflows.Finding {
	_, env := workflows.MapEntry(s, "env")
	if len(secretEnv(env))+len(secretEnv(j.env))+len(secretEnv(w.env)) == 0 {
		return nil
	}
	_, r := workflows.MapEntry(s, "run")
	if r == nil || r.Kind != yaml.ScalarNode {
		return nil
	}
	var out []workflows.Finding
	for _, i := range workflows.UnexecedRuns(r.Value) {
		out = append(out, workflows.Finding{File: w.file, Line: scriptLine(r, i),
			Message: fmt.Sprintf(workflows.ExecMessage, fmt.Sprintf("job %q", j.id))})
	}
	return out
}

// pinnedAction reports whether a step's `uses:` cannot change under the
// workflow: a local action, an image by digest, or an action at a commit.
func pinnedAction(uses string) bool {
	if img, ok := strings.CutPrefix(uses, "docker://"); ok {
		return strings.Contains(img, "@sha256:")
	}
	return strings.HasPrefix(uses, "./") || shaPinned.MatchString(uses)
}

// persistFalse reports whether a checkout step sets persist-credentials
// to the literal false.
func persistFalse(step *yaml.Node) bool {
	_, with := workflows.MapEntry(step, "with")
	_, p := workflows.MapEntry(with, "persist-credentials")
	return p != nil && p.Kind == yaml.ScalarNode && p.ShortTag() == "!!bool" && strings.EqualFold(p.Value, "false")
}

// scriptLine is the file line of line i of a script scalar: block scalars
// (| and >) start on the line after their indicator.
func scriptLine(n *yaml.Node, i int) int { return workflows.ScriptLine(n, i) }

// envName suggests an environment variable for a context reference, e.g.
// github.event.issue.title -> ISSUE_TITLE, inputs.agent -> AGENT.
func envName(ref string) string {
	for _, p := range []string{"github.event.", "github.", "inputs.", "secrets.", "matrix."} {
		if s, ok := strings.CutPrefix(ref, p); ok {
			ref = s
			break
		}
	}
	if _, out, ok := strings.Cut(ref, ".outputs."); ok {
		ref = out
	}
	b := []byte(strings.ToUpper(ref))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return strings.Trim(string(b), "_")
}

// pollFindings checks a job that runs `fullsend poll`: polls must not
// overlap (a concurrency group) and must not cancel each other (a
// cancelled poll leaves its locks until they expire).
func pollFindings(file string, j *job, c *concurrency) []workflows.Finding {
	if c == nil || c.group == "" {
		return []workflows.Finding{{File: file, Line: j.line, Message: fmt.Sprintf("job %q runs fullsend poll without a "+
			"concurrency group, so two polls can overlap; add concurrency: { group: %s, cancel-in-progress: false }", j.id, PollGroup)}}
	}
	if n := c.cancel; n != nil && !(n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && strings.EqualFold(n.Value, "false")) {
		return []workflows.Finding{{File: file, Line: n.Line, Message: fmt.Sprintf("job %q: cancel-in-progress %q "+
			"can cancel a running poll in the middle of dispatching; set cancel-in-progress: false", j.id, n.Value)}}
	}
	return nil
}
