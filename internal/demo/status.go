package demo

import (
	"context"
	"fmt"
	"strings"
)

// status ends the story with `fullsend status` against the emulated Jira:
// what the pollers left on the issues and where their discovery cursor
// stands, at the cost of one search and the cursor's read(s), and no writes.
func (d *demo) status(ctx context.Context) error {
	d.printf("\n13. `fullsend status`: what the pollers left on the issues (it only reads).\n")
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
	total, reads := 0, true
	for ep, n := range spent {
		total += n
		reads = reads && (strings.HasPrefix(ep, "GET ") || ep == "POST /rest/api/3/search/jql")
	}
	d.check("status read one search and the cursor, and wrote nothing",
		reads && spent["POST /rest/api/3/search/jql"] == 1 && total <= 3 && strings.Contains(out, "LOCKS: none") &&
			strings.Contains(out, "CURSOR\n") && strings.Contains(out, fmt.Sprintf("api calls: %d", total)), "Jira calls %v", spent)
	return nil
}
