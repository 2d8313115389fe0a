package ghactions

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/workflows"
	"go.yaml.in/yaml/v3"
)

// File is one workflow file to check: Name as it should appear in
// findings (e.g. .github/workflows/fullsend-run.yml) and its content.
type File struct {
	Name string
	Data []byte
}

// Report is the result of Check.
type Report struct {
	Findings []workflows.Finding // sorted by file and line
	Files    int                 // files read
	// Jobs counts the jobs the rules were applied to: those that run
	// `fullsend run`, `fullsend poll` or `fullsend dispatch`, directly or
	// through a called workflow.
	Jobs int
	// Skipped lists, in input order, the files no rule applies to (no job
	// runs fullsend), with the reason; every other file was checked.
	Skipped []workflows.Skipped
}

// NoFullsendJob is the reason a workflow file without a fullsend job is
// not checked.
const NoFullsendJob = "no job runs fullsend (run, poll or dispatch), so no rule applies"

// keyExpr matches an expression that carries the scope key into a group:
// inputs.serialization_key (workflow_dispatch or workflow_call inputs),
// github.event.inputs.serialization_key, matrix.serialization_key (a
// gha-matrix job) or needs.JOB.outputs.serialization_key. The env context
// is not available in concurrency.
var keyExpr = regexp.MustCompile(`(?i)\$\{\{[^}]*\b(?:inputs|github\.event\.inputs|matrix|needs\.[A-Za-z0-9_-]+\.outputs)\.serialization_key\b[^}]*\}\}`)

// workflowKeyExpr is keyExpr for a workflow-level group, where only the
// github, inputs and vars contexts are available.
var workflowKeyExpr = regexp.MustCompile(`(?i)\$\{\{[^}]*\b(?:inputs|github\.event\.inputs)\.serialization_key\b[^}]*\}\}`)

// Check applies the scheduling and security rules to a set of workflow files that live
// in one directory (so that `uses: ./.github/workflows/X.yml` resolves to
// the file X.yml of the set). Every job that runs `fullsend run` — in a
// `run:` step, or by calling a workflow that does — must have (itself or
// at workflow level) a concurrency group containing the serialization key
// (from a context available where the group is), cancel-in-progress
// absent or the literal false, and queue absent or single; a caller's
// group prefix and its callee's must differ, neither being a prefix of the
// other, ignoring case. A job that runs `fullsend poll` needs a concurrency
// group without cancel-in-progress, and keeps the pollers' state
// directory with GitHub's cache (pollStateFindings). A job that calls a local workflow
// missing from the set is a finding. In every file with a fullsend job, the
// security rules apply (securityFindings), and fullsend's dispatch inputs,
// when it takes them, declare normalized_entity, not required
// (entityInputFindings). A file that is not valid YAML is
// a finding too.
func Check(files []File) Report {
	rep := Report{Files: len(files)}
	parsed := map[string]*workflow{} // by base name, for `uses:` lookups
	present := map[string]bool{}     // every file name, parsed or not
	var order []*workflow
	for _, f := range files {
		present[path.Base(f.Name)] = true
		w, line, err := parseWorkflow(f.Name, f.Data)
		if err != nil {
			rep.Findings = append(rep.Findings, workflows.Finding{File: f.Name, Line: line, Message: err.Error()})
			continue
		}
		parsed[path.Base(f.Name)] = w
		order = append(order, w)
	}
	for _, w := range order {
		fullsend := false
		for _, j := range w.jobs {
			if j.runsDispatch || j.runsPoll {
				rep.Jobs++ // a job that also runs fullsend run is counted below
			}
			if name := localWorkflow(j.uses); name != "" && !present[name] {
				rep.Findings = append(rep.Findings, workflows.Finding{File: w.file, Line: j.usesLine, Message: fmt.Sprintf(
					"job %q calls %s, which is not in this directory: the job fails when it starts", j.id, j.uses)})
			}
			if j.runsDispatch {
				fullsend = true
			}
			if j.runsPoll {
				fullsend = true
				rep.Findings = append(rep.Findings, pollFindings(w.file, j, effective(w, j))...)
				rep.Findings = append(rep.Findings, pollStateFindings(w.file, j)...)
			}
			callee := parsed[localWorkflow(j.uses)]
			viaCallee := callee != nil && runsFullsend(callee) || remoteFullsendWorkflow(j.uses)
			if !j.runsRun && !viaCallee {
				continue
			}
			if !j.runsDispatch && !j.runsPoll {
				rep.Jobs++
			}
			fullsend = true
			eff := effective(w, j)
			rep.Findings = append(rep.Findings, ruleFindings(w.file, j, eff)...)
			rep.Findings = append(rep.Findings, runListFindings(w, j)...)
			if callee != nil && eff != nil && eff.group != "" {
				rep.Findings = append(rep.Findings, collisions(w.file, j, eff, callee)...)
			}
		}
		if fullsend {
			rep.Findings = append(rep.Findings, securityFindings(w)...)
			rep.Findings = append(rep.Findings, entityInputFindings(w)...)
		} else if !hasFindingIn(rep.Findings, w.file) {
			rep.Skipped = append(rep.Skipped, workflows.Skipped{File: w.file, Reason: NoFullsendJob})
		}
	}
	workflows.SortFindings(rep.Findings)
	return rep
}

// hasFindingIn reports whether a finding names file (a call of a missing
// workflow, say): such a file was checked.
func hasFindingIn(findings []workflows.Finding, file string) bool {
	for _, f := range findings {
		if f.File == file {
			return true
		}
	}
	return false
}

// runsFullsend reports whether any job of w runs `fullsend run` itself.
func runsFullsend(w *workflow) bool {
	for _, j := range w.jobs {
		if j.runsRun {
			return true
		}
	}
	return false
}

// effective is the concurrency that applies to j: its own, else the
// workflow's.
func effective(w *workflow, j *job) *concurrency {
	if j.concurrency != nil {
		return j.concurrency
	}
	return w.concurrency
}

// ruleFindings checks the group and cancel-in-progress of one job.
func ruleFindings(file string, j *job, c *concurrency) []workflows.Finding {
	at := func(line int, format string, a ...any) workflows.Finding {
		return workflows.Finding{File: file, Line: line, Message: fmt.Sprintf(format, a...)}
	}
	if c == nil {
		return []workflows.Finding{at(j.line, "job %q runs fullsend run without a concurrency group; "+
			"add concurrency.group containing ${{ inputs.serialization_key }} with cancel-in-progress: false", j.id)}
	}
	var out []workflows.Finding
	switch {
	case c.group == "":
		out = append(out, at(c.line, "job %q: concurrency has no group; the group must contain ${{ inputs.serialization_key }}", j.id))
	case !keyExpr.MatchString(c.group):
		out = append(out, at(c.groupLine, "job %q: concurrency group %q does not contain the serialization key "+
			"(${{ inputs.serialization_key }}), so runs of different subjects would wait on each other", j.id, c.group))
	case c.workflow && !workflowKeyExpr.MatchString(c.group):
		out = append(out, at(c.groupLine, "job %q: concurrency group %q takes the serialization key from a context "+
			"that does not exist at workflow level (only github, inputs and vars do); move the concurrency to the job "+
			"or use ${{ inputs.serialization_key }}", j.id, c.group))
	}
	if n := c.queue; n != nil && !(n.Kind == yaml.ScalarNode && n.Value == "single") {
		out = append(out, at(n.Line, "job %q: concurrency queue %q keeps more than one pending run, so older events "+
			"would run too; remove it or use queue: single (one pending run holding the newest event)", j.id, n.Value))
	}
	if n := c.cancel; n != nil {
		v := strings.TrimSpace(n.Value)
		switch {
		case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && strings.EqualFold(v, "false"):
		case strings.Contains(v, "${{"):
			out = append(out, at(n.Line, "job %q: cancel-in-progress must be the literal false, not an expression", j.id))
		case strings.EqualFold(v, "true"):
			out = append(out, at(n.Line, "job %q: cancel-in-progress: true would cancel an active agent run when a newer event arrives", j.id))
		default:
			out = append(out, at(n.Line, "job %q: cancel-in-progress must be false, got %q", j.id, v))
		}
	}
	return out
}

// runListFindings reports a job that runs `fullsend run` (itself, or
// by calling a workflow that does: a called job gets at most its
// caller's permissions) whose declared permissions (its own, else the
// workflow's) do not let its token list the workflow's runs: the run's
// start-up check (docs/github.md) then fails, and a run GitHub started
// before its dispatcher settled it starts its agent. Undeclared
// permissions are the repository's default, which the check cannot see.
func runListFindings(w *workflow, j *job) []workflows.Finding {
	p := j.permissions
	if p.val == nil {
		p = w.permissions
	}
	if p.val == nil || grantsActions(p.val) {
		return nil
	}
	return []workflows.Finding{{File: w.file, Line: p.key.Line, Message: fmt.Sprintf("job %q runs fullsend run, but its "+
		"permissions do not grant actions: read, so a run cannot list its scope's runs and a duplicate GitHub started "+
		"before its dispatcher settled it runs its agent; add actions: read", j.id)}}
}

// grantsActions reports whether a permissions value lets the token read
// Actions: actions: read or write, read-all or write-all.
func grantsActions(p *yaml.Node) bool {
	if p.Kind == yaml.ScalarNode {
		return p.Value == "read-all" || p.Value == "write-all"
	}
	_, a := workflows.MapEntry(p, "actions")
	return a != nil && a.Kind == yaml.ScalarNode && (a.Value == "read" || a.Value == "write")
}

// collisions reports callee jobs whose group prefix collides with the
// caller's: the called job would then wait on the group its own caller
// holds. A finding names the callee file and line.
func collisions(callerFile string, caller *job, cc *concurrency, callee *workflow) []workflows.Finding {
	cp := groupPrefix(cc.group)
	var out []workflows.Finding
	for _, j := range callee.jobs {
		ec := effective(callee, j)
		if !j.runsRun || ec == nil || ec.group == "" {
			continue
		}
		p := groupPrefix(ec.group)
		// Group names are case-insensitive on GitHub.
		if lp, lcp := strings.ToLower(p), strings.ToLower(cp); strings.HasPrefix(lp, lcp) || strings.HasPrefix(lcp, lp) {
			out = append(out, workflows.Finding{File: callee.file, Line: ec.groupLine, Message: fmt.Sprintf(
				"job %q: group prefix %q collides with prefix %q of its caller %s:%d (job %q); "+
					"the called job would wait on its own caller; use a different prefix such as %q",
				j.id, p, cp, callerFile, cc.groupLine, caller.id, CalleePrefix)})
		}
	}
	return out
}

// groupPrefix is the literal text of a group before its first expression.
func groupPrefix(group string) string {
	p, _, _ := strings.Cut(group, "${{")
	return strings.TrimSpace(p)
}
