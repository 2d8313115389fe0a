package gitlabci

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows"
)

// Report is the result of checking one configuration file.
type Report struct {
	Jobs         int // jobs examined (hidden templates excluded)
	AgentJobs    int // jobs that run `fullsend run`
	DispatchJobs int // jobs that run `fullsend dispatch` on webhook bodies
	Findings     []workflows.Finding
}

// NoFullsendJob is the reason a .gitlab-ci.yml whose jobs run neither
// `fullsend run` nor a webhook `fullsend dispatch` is not checked.
const NoFullsendJob = "no job runs fullsend run or fullsend dispatch, so no rule applies"

// reserved top-level keys that are not jobs.
var reserved = map[string]bool{
	"default": true, "include": true, "stages": true, "variables": true, "workflow": true,
	"image": true, "services": true, "cache": true, "before_script": true, "after_script": true, "spec": true,
}

var (
	runsFullsend = regexp.MustCompile(`(^|[\s;&|(/])fullsend\s+run(\s|$)`)
	runsDispatch = regexp.MustCompile(`(^|[\s;&|(/])fullsend\s+dispatch(\s|$)`)
	namesInput   = regexp.MustCompile(`--input-driver[\s=]`)
	triggerOnly  = regexp.MustCompile(`\$CI_PIPELINE_SOURCE\s*==\s*["']trigger["']|["']trigger["']\s*==\s*\$CI_PIPELINE_SOURCE`)
	scopeKeyed   = regexp.MustCompile(`\$(\{FULLSEND_RESOURCE_KEY\}|FULLSEND_RESOURCE_KEY\b)`)
	pipelineName = regexp.MustCompile(`^fullsend:\$(\{FULLSEND_RESOURCE_KEY\}|FULLSEND_RESOURCE_KEY)$`)
	driverGroup  = regexp.MustCompile(`^fullsend-\$(\{FULLSEND_RESOURCE_KEY\}|FULLSEND_RESOURCE_KEY)$`)
)

// Check reports, as findings with file and line, every problem of a
// .gitlab-ci.yml that breaks the scheduling rule: a job running
// `fullsend run` without a resource_group keyed by $FULLSEND_RESOURCE_KEY
// or with `interruptible: true` (directly, through `extends` or from
// `default`), and — when such a job exists — a workflow without
// `auto_cancel:on_new_commit: none` or without the pipeline name
// `fullsend:$FULLSEND_RESOURCE_KEY`; and a job running `fullsend dispatch`
// on webhook bodies that can run outside trigger pipelines; a job running
// `fullsend poll` that does not cache its state directory (checkPollJob).
// Files pulled
// in with `include` are not followed. A file that is not YAML is an error naming file and line.
func Check(file string, data []byte) ([]workflows.Finding, error) {
	r, err := Inspect(file, data)
	return r.Findings, err
}

// Inspect is Check that also counts the jobs it examined.
func Inspect(file string, data []byte) (Report, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Report{}, fmt.Errorf("%s: %v", file, err)
	}
	var rep Report
	if len(doc.Content) == 0 {
		return rep, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return rep, fmt.Errorf("%s:%d: top level is not a mapping of jobs", file, root.Line)
	}
	c := &checker{file: file, root: root}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if reserved[k.Value] || strings.HasPrefix(k.Value, ".") || v.Kind != yaml.MappingNode {
			continue
		}
		rep.Jobs++
		if c.scriptMatches(v, runsPoll.MatchString) {
			c.checkPollJob(k, v)
		}
		if c.scriptMatches(v, webhookDispatch) {
			rep.DispatchJobs++
			c.checkDispatchJob(k, v)
		}
		if !c.scriptMatches(v, runsFullsend.MatchString) {
			continue
		}
		rep.AgentJobs++
		c.checkJob(k, v)
	}
	if rep.AgentJobs > 0 {
		c.checkWorkflow()
	}
	workflows.SortFindings(c.found)
	rep.Findings = c.found
	return rep, nil
}

type checker struct {
	file  string
	root  *yaml.Node
	found []workflows.Finding
}

func (c *checker) add(line int, format string, a ...any) {
	c.found = append(c.found, workflows.Finding{File: c.file, Line: line, Message: fmt.Sprintf(format, a...)})
}

// maxExtends bounds `extends` chains (GitLab allows 11 levels).
const maxExtends = 11

// lookup finds key in job j, then in the templates it extends (the last
// one listed wins, as in GitLab), then — when fromDefault — in `default`.
func (c *checker) lookup(j *yaml.Node, key string, depth int, fromDefault bool) (*yaml.Node, *yaml.Node) {
	if k, v := workflows.MapEntry(j, key); k != nil {
		return k, v
	}
	if depth < maxExtends {
		parents := c.extends(j)
		for i := len(parents) - 1; i >= 0; i-- {
			if k, v := c.lookup(parents[i], key, depth+1, false); k != nil {
				return k, v
			}
		}
	}
	if fromDefault {
		_, def := workflows.MapEntry(c.root, "default")
		return workflows.MapEntry(def, key)
	}
	return nil, nil
}

// extends returns the job mappings j extends.
func (c *checker) extends(j *yaml.Node) []*yaml.Node {
	_, e := workflows.MapEntry(j, "extends")
	if e == nil {
		return nil
	}
	names := []*yaml.Node{e}
	if e.Kind == yaml.SequenceNode {
		names = e.Content
	}
	var out []*yaml.Node
	for _, n := range names {
		if _, t := workflows.MapEntry(c.root, n.Value); t != nil && t.Kind == yaml.MappingNode {
			out = append(out, t)
		}
	}
	return out
}

// scriptMatches reports whether a line of the job's scripts (own or
// inherited) satisfies match.
func (c *checker) scriptMatches(j *yaml.Node, match func(string) bool) bool {
	for _, key := range []string{"script", "before_script", "after_script"} {
		if _, v := c.lookup(j, key, 0, false); v != nil && scriptRuns(v, match) {
			return true
		}
	}
	return false
}

func scriptRuns(n *yaml.Node, match func(string) bool) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		return match(n.Value)
	case yaml.SequenceNode:
		for _, s := range n.Content {
			if scriptRuns(s, match) {
				return true
			}
		}
	}
	return false
}

// webhookDispatch matches a script line that runs `fullsend dispatch` on a
// GitLab webhook body: with --input-driver gitlab-event, or with no input
// driver, which in a trigger pipeline means gitlab-event.
func webhookDispatch(line string) bool {
	return runsDispatch.MatchString(line) && (strings.Contains(line, "gitlab-event") || !namesInput.MatchString(line))
}

// checkDispatchJob reports a webhook dispatch job that is not confined to
// trigger pipelines: every rule that can run it must require
// $CI_PIPELINE_SOURCE == "trigger" (and no `||` may widen it).
func (c *checker) checkDispatchJob(k, j *yaml.Node) {
	if _, only := c.lookup(j, "only", 0, false); onlyTriggers(only) {
		return
	}
	_, rules := c.lookup(j, "rules", 0, false)
	if rules == nil || rules.Kind != yaml.SequenceNode || len(rules.Content) == 0 {
		c.add(k.Line, "job %q runs `fullsend dispatch` on every pipeline source; add `rules: [{if: '%s'}]` "+
			"so it runs only in trigger pipelines that carry a webhook", k.Value, TriggerRule)
		return
	}
	for _, r := range rules.Content {
		if _, when := workflows.MapEntry(r, "when"); when != nil && when.Value == "never" {
			continue
		}
		_, iv := workflows.MapEntry(r, "if")
		if iv == nil || !triggerOnly.MatchString(iv.Value) || strings.Contains(iv.Value, "||") {
			c.add(r.Line, "job %q: this rule runs `fullsend dispatch` outside trigger pipelines; use `if: '%s'`",
				k.Value, TriggerRule)
		}
	}
}

func (c *checker) checkJob(k, j *yaml.Node) {
	name := k.Value
	if rk, rv := c.lookup(j, "resource_group", 0, false); rk == nil {
		c.add(k.Line, "job %q runs `fullsend run` without a resource_group; add `resource_group: %s` so runs of one scope never overlap", name, ResourceGroup)
	} else if rv.Kind != yaml.ScalarNode || !scopeKeyed.MatchString(rv.Value) {
		c.add(rv.Line, "job %q: resource_group %q is not keyed by scope; use `resource_group: %s`", name, rv.Value, ResourceGroup)
	} else if !driverGroup.MatchString(rv.Value) {
		c.add(rv.Line, "job %q: resource_group %q is not the group the gitlab-pipeline output looks up (%s), so it cannot "+
			"set newest_first on it; use `resource_group: %s`", name, rv.Value, ResourceGroup, ResourceGroup)
	}
	if _, iv := c.lookup(j, "interruptible", 0, true); iv != nil && iv.Kind == yaml.ScalarNode && yamlTrue(iv.Value) {
		c.add(iv.Line, "job %q: interruptible: true lets GitLab cancel an active run; set interruptible: false", name)
	}
	c.checkExec(name, j)
	if _, rules := c.lookup(j, "rules", 0, false); rules != nil && rules.Kind == yaml.SequenceNode {
		for _, r := range rules.Content {
			if _, iv := workflows.MapEntry(r, "interruptible"); iv != nil && iv.Kind == yaml.ScalarNode && yamlTrue(iv.Value) {
				c.add(iv.Line, "job %q: a rule sets interruptible: %s, which lets GitLab cancel an active run when it matches; "+
					"remove it or set false", name, iv.Value)
			}
		}
	}
}

// onlyTriggers reports whether an `only:` value is the list [triggers].
func onlyTriggers(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return false
	}
	for _, v := range n.Content {
		if v.Kind != yaml.ScalarNode || v.Value != "triggers" {
			return false
		}
	}
	return true
}

// yamlTrue reports whether GitLab, which reads YAML 1.1, takes v as true.
func yamlTrue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true
	}
	return false
}

func (c *checker) checkWorkflow() {
	wk, wv := workflows.MapEntry(c.root, "workflow")
	if wk == nil {
		c.add(c.root.Line, "no workflow section: add workflow:name %q and workflow:auto_cancel:on_new_commit: none", PipelineName)
		return
	}
	if nk, nv := workflows.MapEntry(wv, "name"); nk == nil {
		c.add(wk.Line, "workflow has no name; set name: %q so the gitlab-pipeline output can find a scope's pipelines", PipelineName)
	} else if !pipelineName.MatchString(nv.Value) {
		c.add(nv.Line, "workflow:name %q must be %q: the gitlab-pipeline output finds a scope's pipelines by that name", nv.Value, PipelineName)
	}
	c.checkRuleAutoCancel(wv)
	ak, av := workflows.MapEntry(wv, "auto_cancel")
	if ak == nil {
		c.add(wk.Line, "workflow has no auto_cancel; set auto_cancel:on_new_commit: none so a new commit never cancels an agent run")
		return
	}
	ok, ov := workflows.MapEntry(av, "on_new_commit")
	switch {
	case ok == nil:
		c.add(ak.Line, "workflow:auto_cancel has no on_new_commit; set on_new_commit: none so a new commit never cancels an agent run")
	case ov.Value != "none":
		c.add(ov.Line, "workflow:auto_cancel:on_new_commit is %q; set none so a new commit never cancels an agent run", ov.Value)
	}
}

// checkRuleAutoCancel reports workflow:rules entries whose auto_cancel
// overrides on_new_commit with anything but none.
func (c *checker) checkRuleAutoCancel(wv *yaml.Node) {
	_, rules := workflows.MapEntry(wv, "rules")
	if rules == nil || rules.Kind != yaml.SequenceNode {
		return
	}
	for _, r := range rules.Content {
		_, ac := workflows.MapEntry(r, "auto_cancel")
		if ok, ov := workflows.MapEntry(ac, "on_new_commit"); ok != nil && ov.Value != "none" {
			c.add(ov.Line, "workflow:rules sets auto_cancel:on_new_commit %q for the pipelines it matches; "+
				"a new commit would cancel their agent runs; remove the override or set none", ov.Value)
		}
	}
}

// checkExec reports the script lines of an agent job that run `fullsend
// run` without exec: every GitLab job's shell holds the project's
// variables (JIRA_TOKEN, a GITLAB_TOKEN of the job's environment) and
// CI_JOB_TOKEN.
func (c *checker) checkExec(name string, j *yaml.Node) {
	for _, key := range []string{"before_script", "script", "after_script"} {
		_, v := c.lookup(j, key, 0, false)
		if v == nil {
			continue
		}
		items := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			items = v.Content
		}
		for _, it := range items {
			if it.Kind != yaml.ScalarNode {
				continue
			}
			for _, i := range workflows.UnexecedRuns(it.Value) {
				c.add(workflows.ScriptLine(it, i), workflows.ExecMessage, fmt.Sprintf("job %q", name))
			}
		}
	}
}
