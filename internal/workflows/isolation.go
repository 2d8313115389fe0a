package workflows

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// AgentScript is the shell script of the generated step or job that runs
// the agent: `fullsend run` with args. It leaves no shell holding the
// step's tokens (exec replaces it) and, when the CI user may use sudo
// without a password (a GitHub-hosted runner's `runner`), runs fullsend as
// root, so that fullsend can start the agent under an identity of its own
// (docs/security.md). Elsewhere fullsend runs as the CI user (as root in
// most containers) and says whether it could isolate the agent.
func AgentScript(args string) string {
	run := "fullsend run"
	if args != "" {
		run += " " + args
	}
	return `# exec: no shell stays behind with the tokens in its environment.
# As root, fullsend starts the agent under its own identity (docs/security.md).
if [ "$(id -u)" != 0 ] && sudo -n -E true 2>/dev/null; then
  exec sudo -n -E env "PATH=$PATH" ` + run + `
fi
exec ` + run + "\n"
}

// fullsendRunCall finds a `fullsend run` invocation on a script line
// (also through a path, e.g. ./bin/fullsend run).
var fullsendRunCall = regexp.MustCompile(`(?:^|[\s/;&|("'])fullsend(?:\.exe)?\s+run(?:$|[\s;&|)"'])`)

// assignment is a variable assignment before a command word.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// shellKeywords may precede the command word of a simple command.
var shellKeywords = map[string]bool{"then": true, "do": true, "else": true, "{": true, "(": true, "!": true}

// UnexecedRuns returns the indexes of the lines of script that run the
// agent (`fullsend run` without --refresh-only) in a process the script's
// shell waits for, instead of through exec: that shell stays alive
// with the step's tokens in its environment, readable by any process of
// its user.
func UnexecedRuns(script string) []int {
	var out []int
	for i, line := range strings.Split(script, "\n") {
		if c, _, ok := strings.Cut(line, "#"); ok && !strings.Contains(c, "fullsend") {
			continue
		}
		loc := fullsendRunCall.FindStringIndex(line)
		if loc == nil || strings.Contains(line[loc[0]:], "--refresh-only") {
			continue
		}
		if !execed(line[:loc[0]+1]) {
			out = append(out, i)
		}
	}
	return out
}

// execed reports whether the simple command that ends in prefix starts
// with exec.
func execed(prefix string) bool {
	seg := prefix
	for _, sep := range []string{";", "&&", "||", "|", "&", "$("} {
		if i := strings.LastIndex(seg, sep); i >= 0 {
			seg = seg[i+len(sep):]
		}
	}
	for _, w := range strings.Fields(seg) {
		if shellKeywords[w] || assignment.MatchString(w) {
			continue
		}
		return w == "exec"
	}
	return false
}

// ExecMessage is the finding for a script line UnexecedRuns reports; who
// names the step or job.
const ExecMessage = "%s runs `fullsend run` from a shell that stays alive with the tokens in its environment, " +
	"which the agent can read when it runs as the same user; start it with `exec fullsend run` " +
	"(or `exec sudo -n -E env \"PATH=$PATH\" fullsend run`, as `fullsend workflows generate` does; docs/security.md)"

// ScriptLine is the file line of line i of a script scalar: block
// scalars (| and >) start on the line after their indicator.
func ScriptLine(n *yaml.Node, i int) int {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Line + 1 + i
	}
	return n.Line + i
}
