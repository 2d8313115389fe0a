package status

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fullsend-dev/fullsend/internal/english"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// none is shown for a value that is not known.
const none = "—"

// table writes one titled table; rows of nothing print "(none)".
type table struct {
	w   io.Writer
	err error
}

func (t *table) section(title string, header []string, rows [][]string) {
	t.titled(fmt.Sprintf("%s (%d)", title, len(rows)), title, header, rows)
}

// titled writes a table under heading, or "<title>: none".
func (t *table) titled(heading, title string, header []string, rows [][]string) {
	if t.err != nil {
		return
	}
	if len(rows) == 0 {
		_, t.err = fmt.Fprintf(t.w, "%s: none\n\n", title)
		return
	}
	fmt.Fprintln(t.w, heading)
	tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if t.err = tw.Flush(); t.err == nil {
		_, t.err = fmt.Fprintln(t.w)
	}
}

func (t *table) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// renderTable writes rep as kubectl-style tables, one block per input.
func renderTable(w io.Writer, rep *Report) error {
	t := &table{w: w}
	for _, in := range rep.Inputs {
		t.printf("%s %s (repo %s)\n", in.Driver, orNone(in.Site), in.Repo)
		t.pollerTable(in, rep.At)
		if in.Note != "" {
			t.printf("%s\n\n", in.Note)
			continue
		}
		if rep.Issue != nil {
			continue
		}
		t.section("LOCKS", []string{"ITEM", "PHASE", "AGE", "OWNER", "STALE", "RUNS"}, lockRows(in.Locks))
		t.section("QUARANTINED", []string{"ITEM", "CHANGE", "HARNESS", "AT", "ATTEMPTS", "REASON"}, quarantineRows(in.Quarantined, rep.At))
		t.section("FAILING", []string{"ITEM", "HARNESS", "CHANGE", "ATTEMPTS", "LAST", "REASON"}, failingRows(in.Failing, rep.At))
		t.section("DEFERRED", []string{"ITEM", "HARNESS", "KIND", "RETRIES FROM", "KEY"}, deferredRows(in.Deferred, rep.At))
		t.cursorTable(in.Cursor)
		scanned := "scanned the " + english.Count(in.Scanned, "newest-updated candidate") + " of the queries"
		if in.Truncated {
			scanned += " (a full page: older ones were not read; --limit)"
		}
		t.printf("%s; jira rate limit left: %s\n\n", scanned, budget(in.RateLimit))
	}
	if rep.Issue != nil {
		t.issue(rep.Issue, rep.At)
	}
	t.printf("api calls: %d\n", rep.APICalls)
	return t.err
}

func (t *table) pollerTable(in Input, now time.Time) {
	p := in.Poller
	if p == nil {
		t.printf("POLLER: %s\n\n", in.PollerNote)
		return
	}
	row := []string{stamp(p.LastCycle, now), orNone(p.LastResult), stamp(p.LastSuccess, now),
		fmt.Sprintf("%d/%d", p.CyclesOK, p.CyclesFailed), seconds(p.MeanDurationSec), strconv.Itoa(p.APICalls), intOrNone(p.BudgetRemaining)}
	t.titled("POLLER", "POLLER", []string{"LAST CYCLE", "RESULT", "LAST SUCCESS", "CYCLES OK/ERR", "MEAN DURATION", "API CALLS", "BUDGET LEFT"}, [][]string{row})
	if p.LastError != "" {
		t.printf("last error: %s\n\n", p.LastError)
	}
}

func (t *table) cursorTable(c *Cursor) {
	if c == nil {
		t.printf("CURSOR: %s\n\n", none)
		return
	}
	var pollers []string
	for id, ts := range c.Pollers {
		pollers = append(pollers, id+"@"+ts.UTC().Format(time.RFC3339))
	}
	sortStrings(pollers)
	var held []string
	for key := range c.Held {
		held = append(held, key)
	}
	sortStrings(held)
	row := []string{c.At.UTC().Format(time.RFC3339), age(time.Duration(c.LagSec * float64(time.Second))), orNone(c.By),
		c.TS.UTC().Format(time.RFC3339), orNone(strings.Join(held, " ")), orNone(strings.Join(pollers, " "))}
	t.titled("CURSOR", "CURSOR", []string{"AT", "LAG", "BY", "WRITTEN", "HELD", "POLLERS"}, [][]string{row})
}

func lockRows(ls []Lock) [][]string {
	var rows [][]string
	for _, l := range ls {
		if l.Corrupt != "" {
			rows = append(rows, []string{l.Item, "corrupt", none, none, "yes", l.Corrupt})
			continue
		}
		rows = append(rows, []string{l.Item, l.Phase, age(time.Duration(l.AgeSec * float64(time.Second))), l.Owner, yesNo(l.Stale), runs(l.Runs)})
	}
	return rows
}

func quarantineRows(qs []Quarantine, now time.Time) [][]string {
	var rows [][]string
	for _, q := range qs {
		rows = append(rows, []string{q.Item, q.Change, orNone(q.Harness), ago(q.At, now), strconv.Itoa(q.Attempts), q.Reason})
	}
	return rows
}

func failingRows(fs []Failing, now time.Time) [][]string {
	var rows [][]string
	for _, f := range fs {
		rows = append(rows, []string{f.Item, f.Harness, f.Change, fmt.Sprintf("%d of 3", f.Attempts), ago(f.TS, now), f.Reason})
	}
	return rows
}

func deferredRows(ds []Deferred, now time.Time) [][]string {
	var rows [][]string
	for _, d := range ds {
		rows = append(rows, []string{d.Item, d.Harness, d.Kind, ago(d.Position, now), orNone(d.Key)})
	}
	return rows
}

func runs(rs []plan.Ref) string {
	if len(rs) == 0 {
		return none
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = strings.TrimSpace(r.Driver + " " + orNone(r.ID) + " " + r.URL)
	}
	return strings.Join(out, ", ")
}
