package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
)

// story plays the scenes in order; each ends with its checks.
func (d *demo) story(ctx context.Context) error {
	w := d.w
	issue1, issue2, issue3, issue4 := w.issues[0], w.issues[1], w.issues[2], w.issues[3]

	d.printf("1. First deployment: `fullsend poll seed` sets lastCheck on the backlog, so old history starts nothing.\n")
	code, out, errs := d.run(ctx, w.env, "poll", "seed")
	if code != 0 {
		return fmt.Errorf("poll seed exited %d: %s", code, lastLine(errs))
	}
	d.printf("   %s\n", strings.TrimSpace(out))
	d.settle(ctx, 2)
	d.check("seeded backlog starts nothing", len(d.dispatchedRuns()) == 0, "%s", english.Count(len(d.dispatchedRuns()), "run"))
	time.Sleep(5 * time.Millisecond) // changes below are strictly after lastCheck

	d.printf("\n2. Dana (developer) comments \"/fs-triage what is missing?\" on %s; %d pollers run concurrently.\n", issue1, d.pollers)
	w.jira.AddComment(issue1, dev, "/fs-triage what is missing?")
	d.settle(ctx, 4)
	r1 := runsFor(d.dispatchedRuns(), "triage", issue1)
	d.check("developer's request dispatched once", len(r1) == 1 && strings.Contains(commentOf(r1), "what is missing"),
		"%s for %s", english.Count(len(r1), "triage run"), issue1)

	d.printf("\n3. Oscar (no project role) posts the same command on %s.\n", issue2)
	w.jira.AddComment(issue2, outsider, "/fs-triage do it for me")
	d.settle(ctx, 4)
	r2 := runsFor(d.dispatchedRuns(), "triage", issue2)
	reason := d.denialReason(outsider)
	d.check("outsider denied", len(r2) == 0 && reason != "", "%s; reason: %s", english.Count(len(r2), "run"), reason)

	d.printf("\n4. Dana posts 5 triage requests on %s between two cycles.\n", issue3)
	for i := 1; i <= 5; i++ {
		w.jira.AddComment(issue3, dev, fmt.Sprintf("/fs-triage attempt %d", i))
		time.Sleep(2 * time.Millisecond)
	}
	coalescedBefore := d.coalesced()
	d.settle(ctx, 4)
	r3 := runsFor(d.dispatchedRuns(), "triage", issue3)
	d.check("burst coalesced into one run carrying the newest comment",
		len(r3) == 1 && strings.Contains(commentOf(r3), "attempt 5") && d.coalesced()-coalescedBefore >= 4,
		"%s, comment %q, %d coalesced", english.Count(len(r3), "run"), commentOf(r3), d.coalesced()-coalescedBefore)

	d.printf("\n5. Ada (admin) adds the label needs-triage to %s.\n", issue4)
	w.jira.AddLabel(issue4, "needs-triage", admin)
	d.settle(ctx, 4)
	r4 := runsFor(d.dispatchedRuns(), "label-triage", issue4)
	d.check("label trigger dispatched", len(r4) == 1, "%s for %s", english.Count(len(r4), "label-triage run"), issue4)

	d.printf("\n6. Quiet cycles: nothing changed, nothing may be dispatched again.\n")
	before := len(d.dispatchedRuns())
	d.round(ctx, d.pollers)
	all := d.dispatchedRuns()
	d.check("no duplicates", duplicates(all) == 0 && len(all) == before && len(all) == 3,
		"%s in all, %s", english.Count(len(all), "run"), english.Count(duplicates(all), "duplicate"))
	d.check("every poll lock handed to its run and released", d.locksLeft() == 0 && len(d.runFailures) == 0,
		"%s left, %s %v", english.Count(d.locksLeft(), "lock"), english.Count(len(d.runFailures), "run failure"), d.runFailures)
	d.check("every poller cycle succeeded", len(d.t.failed) == 0, "%d failed %v", len(d.t.failed), d.t.failed)

	d.printf("\n7. The local executor: `fullsend dispatch --output-driver local` runs the triage harness on this machine.\n")
	if err := d.local(ctx); err != nil {
		return err
	}
	if err := d.gitlab(ctx); err != nil {
		return err
	}
	if err := d.reconcile(ctx); err != nil {
		return err
	}
	return d.status(ctx)
}

// local dispatches one NormalizedEvent through the local executor.
func (d *demo) local(ctx context.Context) error {
	r1 := runsFor(d.dispatchedRuns(), "triage", d.w.issues[0])
	if len(r1) == 0 {
		d.check("local executor ran the agent", false, "no event to replay")
		return nil
	}
	evFile := filepath.Join(d.w.dir, "event.json")
	if err := os.WriteFile(evFile, []byte(r1[0].run.Inputs["normalized_event"]), 0o600); err != nil {
		return err
	}
	code, _, errs := d.run(ctx, d.w.env, "dispatch", "--input-file", evFile, "--output-driver", drivername.Local)
	agentLine := ""
	for _, l := range strings.Split(errs, "\n") {
		if strings.Contains(l, "triage agent:") {
			agentLine = strings.TrimSpace(l)
		}
	}
	d.printf("    %s\n", agentLine)
	d.check("local executor ran the agent", code == 0 && agentLine != "", "exit %d", code)
	return nil
}

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

func commentOf(rs []dispatched) string {
	if len(rs) == 0 {
		return ""
	}
	return rs[len(rs)-1].comment
}

func (d *demo) denialReason(actor string) string {
	d.t.mu.Lock()
	defer d.t.mu.Unlock()
	for _, dn := range d.t.denials {
		if dn.Actor == actor {
			return dn.Reason
		}
	}
	return ""
}

func (d *demo) coalesced() int {
	d.t.mu.Lock()
	defer d.t.mu.Unlock()
	n := 0
	for _, c := range d.t.cycles {
		n += c.Coalesced
	}
	return n
}

func (d *demo) locksLeft() int {
	lock, _ := polllock.Keys(repo)
	n := 0
	for _, k := range d.w.issues {
		if _, ok := d.w.jira.Property(k, lock); ok {
			n++
		}
	}
	return n
}
