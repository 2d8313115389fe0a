package demo

import (
	"context"
	"time"

	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/receipts"
)

// reconcile is the scene of scheduled discovery: a label asks for an
// agent with no command; the scheduled run's first attempt fails, the
// entity stays due (no receipt), and the retry after the backoff
// succeeds and writes the receipt, after which quiet cycles start
// nothing.
func (d *demo) reconcile(ctx context.Context) error {
	w := d.w
	issue := w.issues[1]
	d.printf("\n12. Scheduled discovery: Dana labels %s needs-agent. The reconcile harness (evaluated with no event) fails its first run; the entity stays due and is retried after the 1s backoff.\n", issue)
	w.jira.AddLabel(issue, "needs-agent", dev)
	d.settle(ctx, 4)
	first := len(runsFor(d.dispatchedRuns(), "reconcile", issue))
	time.Sleep(1100 * time.Millisecond) // entity.retry.backoff: 1s on the emulator's clock
	d.settle(ctx, 4)
	d.round(ctx, d.pollers) // quiet: the receipt covers the version
	d.executeRuns(ctx)
	runs := runsFor(d.dispatchedRuns(), "reconcile", issue)
	raw, _ := w.jira.Property(issue, receipts.Key(repo))
	rs, err := receipts.Parse(raw)
	ok := err == nil && rs["reconcile"].Success != nil && rs["reconcile"].Success.Attempts == 2
	d.check("failed scheduled run retried once, succeeded, receipt written", first == 1 && len(runs) == 2 && ok,
		"%s, receipt %s", english.Count(len(runs), "reconcile run"), raw)
	return nil
}
