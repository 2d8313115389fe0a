package demo

import (
	"context"
	"fmt"
	"strings"
)

// status ends the story with `fullsend status` against the emulated Jira:
// what the pollers left on the issues, at the cost of one search and no
// writes.
func (d *demo) status(ctx context.Context) error {
	d.printf("\n12. `fullsend status`: what the pollers left on the issues (it only reads).\n")
	before := d.w.jira.Calls()
	code, out, errs := d.run(ctx, d.w.env, "status")
	if code != 0 {
		return fmt.Errorf("status exited %d: %s", code, lastLine(errs))
	}
	for _, l := range strings.Split(strings.TrimRight(strings.ReplaceAll(out, d.w.jiraURL, "<jira>"), "\n"), "\n") {
		d.printf("%s\n", strings.TrimRight("   "+l, " "))
	}
	spent := map[string]int{}
	for ep, n := range d.w.jira.Calls() {
		if n -= before[ep]; n > 0 {
			spent[ep] = n
		}
	}
	d.check("status read one search and wrote nothing",
		len(spent) == 1 && spent["POST /rest/api/3/search/jql"] == 1 && strings.Contains(out, "LOCKS: none") &&
			strings.Contains(out, "api calls: 1"), "Jira calls %v", spent)
	return nil
}
