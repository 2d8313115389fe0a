package ghactions

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows"
)

// The cache actions that keep the pollers' state directory between
// scheduled runs: restore and save, or the combined action (which saves
// in its post step).
const (
	cacheAction  = "actions/cache@"
	cacheRestore = "actions/cache/restore@"
	cacheSave    = "actions/cache/save@"
)

// statePolicy is where docs explain the rule.
const statePolicy = `(docs/polling.md, "State directory")`

// pollStateFindings checks that a job running `fullsend poll` keeps the
// pollers' state directory between its scheduled runs with GitHub's cache
// (the action pinned as every action is, by securityFindings): restored
// before the poll step, by a key unique to the run with restore-keys
// naming its prefix (the newest entry is restored), and saved after it
// under that unique key (an entry is never overwritten, so a fixed key
// would keep the first state for ever). Without it each run costs the
// API calls an idle cycle otherwise saves; nothing is lost either way.
func pollStateFindings(file string, j *job) []workflows.Finding {
	var out []workflows.Finding
	at := func(line int, format string, a ...any) {
		out = append(out, workflows.Finding{File: file, Line: line, Message: fmt.Sprintf(format, a...)})
	}
	poll, restore, save := -1, -1, -1
	dir := ""
	for i, s := range j.steps {
		if _, r := workflows.MapEntry(s, "run"); r != nil && r.Kind == yaml.ScalarNode && fullsendPoll.MatchString(r.Value) {
			poll, dir = i, stateDirOf(r.Value)
			break
		}
	}
	for i, s := range j.steps {
		_, u := workflows.MapEntry(s, "uses")
		if u == nil || u.Kind != yaml.ScalarNode {
			continue
		}
		combined := strings.HasPrefix(u.Value, cacheAction)
		if combined || strings.HasPrefix(u.Value, cacheRestore) {
			restore = i
			if p := withValue(s, "path"); !strings.Contains(p, dir) {
				at(u.Line, "job %q: the cache's path %q does not hold the poll's state directory (%s): cache the directory fullsend poll --state-dir names %s",
					j.id, p, dir, statePolicy)
			}
			if !perRun(s, "key") || !hasWith(s, "restore-keys") {
				at(u.Line, "job %q: the poll state is restored by a fixed key or without restore-keys, so it never moves past its first save; "+
					"key it per run (key: fullsend-poll-state-${{ github.run_id }}-${{ github.run_attempt }}) and restore the newest by prefix "+
					"(restore-keys: fullsend-poll-state-) %s", j.id, statePolicy)
			}
		}
		if combined || strings.HasPrefix(u.Value, cacheSave) {
			save = i
			if !combined && !perRun(s, "key") {
				at(u.Line, "job %q: the poll state is saved under a fixed key; a cache entry is never overwritten, so save it under a key unique to the run "+
					"(…-${{ github.run_id }}-${{ github.run_attempt }}) %s", j.id, statePolicy)
			}
		}
	}
	switch {
	case restore < 0 || restore > poll:
		at(j.line, "job %q runs fullsend poll without restoring the pollers' state directory first (actions/cache/restore, its path the poll's --state-dir), "+
			"so every scheduled run re-learns what idle cycles need and costs more API calls %s", j.id, statePolicy)
	case save < 0 || save < poll && !strings.HasPrefix(usesOf(j.steps[save]), cacheAction):
		at(j.line, "job %q runs fullsend poll without saving the pollers' state directory after it (actions/cache/save, if: always()), "+
			"so the next scheduled run starts without it %s", j.id, statePolicy)
	}
	return out
}

// stateDirOf is the last element of the --state-dir a poll script
// passes, "fullsend" (the default directory's) when it passes none.
func stateDirOf(script string) string {
	m := stateDirFlag.FindStringSubmatch(script)
	if m == nil {
		return pollstateDirName
	}
	return path.Base(strings.TrimRight(m[1], "/"))
}

var stateDirFlag = regexp.MustCompile(`--state-dir[\s=]+["']?([^\s"';&|]+)`)

// pollstateDirName is the default state directory's name
// (pollstate.DirName, under the user cache directory).
const pollstateDirName = "fullsend"

// withValue is the step's with.<name> ("" when absent).
func withValue(step *yaml.Node, name string) string {
	_, with := workflows.MapEntry(step, "with")
	_, v := workflows.MapEntry(with, name)
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

// perRun reports whether the step's with.<name> changes with every run.
func perRun(step *yaml.Node, name string) bool {
	_, with := workflows.MapEntry(step, "with")
	_, v := workflows.MapEntry(with, name)
	return v != nil && v.Kind == yaml.ScalarNode && strings.Contains(strings.ReplaceAll(v.Value, " ", ""), "github.run_id")
}

// hasWith reports whether the step sets a non-empty with.<name>.
func hasWith(step *yaml.Node, name string) bool {
	_, with := workflows.MapEntry(step, "with")
	_, v := workflows.MapEntry(with, name)
	return v != nil && v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) != ""
}

func usesOf(step *yaml.Node) string {
	_, u := workflows.MapEntry(step, "uses")
	if u == nil {
		return ""
	}
	return u.Value
}
