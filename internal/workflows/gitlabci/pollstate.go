package gitlabci

import (
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/workflows"
)

var (
	runsPoll = regexp.MustCompile(`(^|[\s;&|(/])fullsend\s+poll(\s|$)`)
	stateDir = regexp.MustCompile(`--state-dir[\s=]+["']?([^\s"';&|]+)`)
)

// statePolicy is where docs explain the rule.
const statePolicy = `(docs/polling.md, "State directory")`

// checkPollJob checks that a job running `fullsend poll` keeps the
// pollers' state directory between scheduled pipelines: --state-dir
// inside the project directory (GitLab caches nothing else) and a
// `cache:` entry (the job's, a template's or default's) whose paths hold
// it, saved `when: always`. Without it each pipeline costs the API calls
// an idle cycle otherwise saves; nothing is lost either way.
func (c *checker) checkPollJob(k, j *yaml.Node) {
	dir := ""
	for _, key := range []string{"script", "before_script", "after_script"} {
		if _, v := c.lookup(j, key, 0, false); v != nil {
			scriptRuns(v, func(line string) bool {
				if m := stateDir.FindStringSubmatch(line); m != nil && runsPoll.MatchString(line) && dir == "" {
					dir = m[1]
				}
				return false
			})
		}
	}
	rel, inside := projectPath(dir)
	if !inside {
		c.add(k.Line, "job %q runs fullsend poll without --state-dir inside the project directory, where GitLab's cache can keep it; "+
			"every scheduled pipeline then re-learns what idle cycles need and costs more API calls %s", k.Value, statePolicy)
		return
	}
	ck, cache := c.lookup(j, "cache", 0, true)
	entry := stateCache(cache, rel)
	switch {
	case entry == nil:
		c.add(k.Line, "job %q: no cache: entry keeps its --state-dir %s between pipelines (cache: {key: fullsend-poll-state-$CI_COMMIT_REF_SLUG, "+
			"paths: [%s/], when: always}) %s", k.Value, dir, rel, statePolicy)
	case !always(entry):
		line := k.Line
		if ck != nil {
			line = ck.Line
		}
		c.add(line, "job %q: the cache of the poll state is saved only when the job succeeds; set when: always so that a failed poll keeps it too %s",
			k.Value, statePolicy)
	}
}

// projectPath is dir relative to the project directory, and whether it
// lies inside it.
func projectPath(dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	for _, p := range []string{"$CI_PROJECT_DIR/", "${CI_PROJECT_DIR}/"} {
		dir = strings.TrimPrefix(dir, p)
	}
	rel := path.Clean(dir)
	if path.IsAbs(rel) || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.ContainsAny(rel, "$~") {
		return rel, false
	}
	return rel, true
}

// stateCache is the entry of a cache: value (one mapping or a list of
// them) whose paths hold rel.
func stateCache(cache *yaml.Node, rel string) *yaml.Node {
	if cache == nil {
		return nil
	}
	entries := []*yaml.Node{cache}
	if cache.Kind == yaml.SequenceNode {
		entries = cache.Content
	}
	for _, e := range entries {
		_, paths := workflows.MapEntry(e, "paths")
		if paths == nil || paths.Kind != yaml.SequenceNode {
			continue
		}
		for _, p := range paths.Content {
			if got, ok := projectPath(p.Value); ok && (got == rel || strings.HasPrefix(rel, got+"/")) {
				return e
			}
		}
	}
	return nil
}

func always(entry *yaml.Node) bool {
	_, w := workflows.MapEntry(entry, "when")
	return w != nil && w.Kind == yaml.ScalarNode && w.Value == "always"
}
