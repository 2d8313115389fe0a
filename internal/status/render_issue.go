package status

import (
	"strings"
	"time"
)

// issue writes the --issue view.
func (t *table) issue(r *IssueReport, now time.Time) {
	t.printf("ISSUE %s  %s\n%s (updated %s)\n\n", r.Item, r.Summary, r.URL, ago(r.Updated, now))
	var locks []Lock
	if r.Lock != nil {
		locks = []Lock{*r.Lock}
	}
	t.section("LOCK", []string{"ITEM", "PHASE", "AGE", "OWNER", "STALE", "RUNS"}, lockRows(locks))
	t.lastCheck(r.LastCheck, now)
	t.section("QUARANTINED", []string{"ITEM", "CHANGE", "HARNESS", "AT", "ATTEMPTS", "REASON"}, quarantineRows(r.Quarantined, now))
	t.section("FAILING", []string{"ITEM", "HARNESS", "CHANGE", "ATTEMPTS", "LAST", "REASON"}, failingRows(r.Failing, now))
	t.section("DEFERRED", []string{"ITEM", "HARNESS", "KIND", "RETRIES FROM", "KEY"}, deferredRows(r.Deferred, now))
	if r.Error != "" {
		t.printf("CHANGES: could not be read: %s\n\n", r.Error)
	} else {
		var rows [][]string
		for _, c := range r.Changes {
			rows = append(rows, []string{ago(c.At, now), c.Change, c.Kind, c.Actor + " (" + c.Role + ")", c.Verdict,
				orNone(strings.Join(c.Harnesses, ",")), c.Reason})
		}
		t.section("CHANGES SINCE LASTCHECK (dry run)", []string{"AT", "CHANGE", "KIND", "ACTOR", "VERDICT", "HARNESSES", "REASON"}, rows)
		var runs [][]string
		for _, w := range r.WouldDispatch {
			runs = append(runs, []string{w.Harness, w.Change, ago(w.At, now), w.Scope})
		}
		t.section("WOULD DISPATCH", []string{"HARNESS", "CHANGE", "AT", "SCOPE"}, runs)
	}
	if r.Held != "" {
		t.printf("held: %s\n\n", r.Held)
	}
	t.steers(r, now)
}

// steers writes the runs the lock records and, when a harness steers,
// the follow-ups each run took.
func (t *table) steers(r *IssueReport, now time.Time) {
	var recent [][]string
	for _, ref := range r.Runs {
		row := []string{ref.Driver, orNone(ref.ID), orNone(ref.URL)}
		if r.Steers != nil {
			row = append(row, steersOf(r.Steers, ref))
		}
		recent = append(recent, row)
	}
	header := []string{"DRIVER", "ID", "URL"}
	if r.Steers != nil {
		header = append(header, "STEERS")
	}
	t.section("RECENT RUNS (from the lock)", header, recent)
	switch {
	case r.SteersError != "":
		t.printf("STEERS: could not be read: %s\n\n", r.SteersError)
	case r.Steers != nil:
		t.section("STEERS (follow-ups delivered into a running agent, newest first)", []string{"RUN", "HARNESS", "COMMENT", "RECORDED"},
			steerRows(r.Steers, now))
	}
}

func (t *table) lastCheck(lc *LastCheck, now time.Time) {
	if lc == nil {
		t.printf("LASTCHECK: none (every change since the issue's creation counts)\n\n")
		return
	}
	if lc.Corrupt != "" {
		t.printf("LASTCHECK: corrupt (%s): a cycle uses the issue's creation as baseline\n\n", lc.Corrupt)
		return
	}
	t.printf("LASTCHECK: %s (%s)\n\n", lc.TS.Format(time.RFC3339Nano), ago(lc.TS, now))
}
