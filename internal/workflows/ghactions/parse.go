package ghactions

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows"
)

// workflow is the part of a GitHub workflow file the checker needs, with
// the line of every value it may report on.
type workflow struct {
	file        string
	reusable    bool         // triggered by workflow_call
	concurrency *concurrency // workflow level, nil when absent
	env         *yaml.Node   // workflow-level env, nil when absent
	permissions entry        // workflow-level permissions, zero when absent
	triggers    map[string]bool
	on          *yaml.Node // the `on:` value, nil when absent
	jobs        []*job
}

// job is one entry under `jobs:`.
type job struct {
	id           string
	line         int
	concurrency  *concurrency // job level, nil when absent
	runsRun      bool         // a step's script runs `fullsend run`
	runsPoll     bool         // a step's script runs `fullsend poll`
	runsDispatch bool         // a step's script runs `fullsend dispatch`
	cond         string       // the job's `if:`, "" when absent
	condLine     int
	uses         string // reusable workflow reference, "" when none
	usesLine     int
	env          *yaml.Node // job-level env, nil when absent
	permissions  entry      // job-level permissions, zero when absent
	secrets      *yaml.Node // `secrets:` of a reusable workflow call
	steps        []*yaml.Node
}

// entry is a key of a mapping and its value.
type entry struct{ key, val *yaml.Node }

// concurrency is a `concurrency:` value in either form: a bare group
// string, or a mapping with group and cancel-in-progress.
type concurrency struct {
	line      int
	group     string
	groupLine int
	cancel    *yaml.Node // nil when absent (GitHub's default: false)
	queue     *yaml.Node // nil when absent (GitHub's default: single)
	workflow  bool       // workflow level (no matrix or needs context there)
}

// fullsendRun matches a `fullsend run` invocation in a shell script, also
// through a path (./bin/fullsend run) and with flags after it.
var fullsendRun = regexp.MustCompile(`(?:^|[\s/;&|("'])fullsend(?:\.exe)?\s+run(?:$|[\s;&|)"'])`)

// fullsendPoll matches a `fullsend poll` invocation the same way.
var fullsendPoll = regexp.MustCompile(`(?:^|[\s/;&|("'])fullsend(?:\.exe)?\s+poll(?:$|[\s;&|)"'])`)

// fullsendDispatch matches a `fullsend dispatch` invocation the same way.
var fullsendDispatch = regexp.MustCompile(`(?:^|[\s/;&|("'])fullsend(?:\.exe)?\s+dispatch(?:$|[\s;&|)"'])`)

// yamlLine finds the line number in a yaml error message.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// parseWorkflow decodes data. A YAML error is returned as a finding-ready
// error with its line (0 when unknown).
func parseWorkflow(file string, data []byte) (*workflow, int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, line, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	w := &workflow{file: file}
	if len(doc.Content) == 0 {
		return w, 0, nil // empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, root.Line, fmt.Errorf("not a workflow: the top level is not a mapping")
	}
	if _, on := workflows.MapEntry(root, "on"); on != nil {
		w.on = on
		w.triggers = triggers(on)
		w.reusable = w.triggers["workflow_call"]
	}
	if k, c := workflows.MapEntry(root, "concurrency"); c != nil {
		w.concurrency = parseConcurrency(k, c)
		w.concurrency.workflow = true
	}
	_, w.env = workflows.MapEntry(root, "env")
	w.permissions.key, w.permissions.val = workflows.MapEntry(root, "permissions")
	_, jobs := workflows.MapEntry(root, "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return w, 0, nil
	}
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		k, v := jobs.Content[i], jobs.Content[i+1]
		j := &job{id: k.Value, line: k.Line}
		if v.Kind == yaml.MappingNode {
			if ck, c := workflows.MapEntry(v, "concurrency"); c != nil {
				j.concurrency = parseConcurrency(ck, c)
			}
			if _, u := workflows.MapEntry(v, "uses"); u != nil && u.Kind == yaml.ScalarNode {
				j.uses, j.usesLine = u.Value, u.Line
			}
			_, j.env = workflows.MapEntry(v, "env")
			j.permissions.key, j.permissions.val = workflows.MapEntry(v, "permissions")
			_, j.secrets = workflows.MapEntry(v, "secrets")
			if _, steps := workflows.MapEntry(v, "steps"); steps != nil && steps.Kind == yaml.SequenceNode {
				j.steps = steps.Content
			}
			j.runsRun = stepsMatch(j.steps, fullsendRun)
			j.runsPoll = stepsMatch(j.steps, fullsendPoll)
			j.runsDispatch = stepsMatch(j.steps, fullsendDispatch)
			if k, c := workflows.MapEntry(v, "if"); c != nil && c.Kind == yaml.ScalarNode {
				j.cond, j.condLine = c.Value, k.Line
			}
		}
		w.jobs = append(w.jobs, j)
	}
	return w, 0, nil
}

// triggers is the set of event names an `on:` value names.
func triggers(on *yaml.Node) map[string]bool {
	set := map[string]bool{}
	switch on.Kind {
	case yaml.ScalarNode:
		set[on.Value] = true
	case yaml.SequenceNode:
		for _, n := range on.Content {
			set[n.Value] = true
		}
	case yaml.MappingNode:
		for i := 0; i < len(on.Content); i += 2 {
			set[on.Content[i].Value] = true
		}
	}
	return set
}

// parseConcurrency reads the value n of the `concurrency:` key k.
func parseConcurrency(k, n *yaml.Node) *concurrency {
	c := &concurrency{line: k.Line}
	switch n.Kind {
	case yaml.ScalarNode:
		c.group, c.groupLine = n.Value, n.Line
	case yaml.MappingNode:
		if _, g := workflows.MapEntry(n, "group"); g != nil && g.Kind == yaml.ScalarNode {
			c.group, c.groupLine = g.Value, g.Line
		}
		_, c.cancel = workflows.MapEntry(n, "cancel-in-progress")
		_, c.queue = workflows.MapEntry(n, "queue")
	}
	return c
}

// stepsMatch reports whether any `run:` script of steps matches re.
func stepsMatch(steps []*yaml.Node, re *regexp.Regexp) bool {
	for _, s := range steps {
		if _, r := workflows.MapEntry(s, "run"); r != nil && r.Kind == yaml.ScalarNode && re.MatchString(r.Value) {
			return true
		}
	}
	return false
}

// localWorkflow returns the file name a job's `uses:` refers to when it is
// a workflow in this repository (./.github/workflows/NAME.yml), else "".
func localWorkflow(uses string) string {
	if !strings.HasPrefix(uses, "./") {
		return ""
	}
	if ext := path.Ext(uses); ext != ".yml" && ext != ".yaml" {
		return ""
	}
	return path.Base(uses)
}

// remoteFullsendWorkflow reports whether uses names a workflow in another
// repository (owner/repo/.github/workflows/NAME@ref) whose file name
// starts with "fullsend-run"; such a callee is assumed to run `fullsend run`.
func remoteFullsendWorkflow(uses string) bool {
	if strings.HasPrefix(uses, "./") || !strings.Contains(uses, "/.github/workflows/") {
		return false
	}
	name, _, _ := strings.Cut(path.Base(uses), "@")
	return strings.HasPrefix(name, "fullsend-run")
}
