package chaos_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
)

// figure is one line of a mode's report: its value ("n/a" when it does
// not apply) and what it counts.
type figure struct {
	name, value, note string
}

func num[T int | int64](name string, v T, note string) figure {
	return figure{name, strconv.FormatInt(int64(v), 10), note}
}

// printReport prints a mode's figures, one a line, in the same order
// for every mode, and reports the numeric ones as benchmark metrics.
func printReport(b *testing.B, title string, fs []figure) {
	fmt.Printf("chaos %s:\n", title)
	for _, f := range fs {
		fmt.Printf("  %-40s %6s  %s\n", f.name, f.value, f.note)
		if v, err := strconv.ParseFloat(f.value, 64); err == nil {
			b.ReportMetric(v, strings.ReplaceAll(f.name, " ", "_"))
		}
	}
}

// reportForge: lost changes (per subject and harness, the comments made
// after the newest comment a started run carried, by the forge's time,
// then id), those made in the same second as an earlier comment of their
// subject (GitHub's one-second timestamps) counted apart too; duplicates
// (a comment whose agent one harness started more than once); and the
// scope figures of the samples.
func reportForge(b *testing.B, w world, c *forgeCounts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dups, newestRun := forgeDuplicates(c)
	lostSame, lost := 0, 0
	for id := range c.commentAt {
		for _, h := range harnesses {
			if !(changepos.Pos{At: c.commentAt[id], ID: id}).After(newestRun[subjectHarness{c.commentOf[id], h}]) {
				continue
			}
			lost++
			lostSame += btoi(sameSecond(c, id))
		}
	}
	all := w.runs()
	left := 0
	for _, r := range all {
		left += btoi(r.waiting || r.admitted || r.active)
	}
	requests, what := w.requests()
	input := map[string]string{"github": "github-poll", "gitlab": "gitlab-poll"}[*forge]
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + " ms" }
	printReport(b, fmt.Sprintf("%s: %d %s pollers at grace 0s racing the webhook path, kill p=%g, %s", *forge, *pollers, input, *pKill, *duration), []figure{
		num("processes", c.processes.Load(), fmt.Sprintf("poller processes; and %d webhook deliveries, one process each, never killed", c.webhooks.Load())),
		num("kills", c.kills.Load(), "poller processes killed with SIGKILL"),
		num("changes", c.changes.Load(), fmt.Sprintf("comments made; %d of them dropped by the webhook path", c.dropped.Load())),
		num("dispatches", len(all), "runs created"),
		num("lost", lost, fmt.Sprintf("change and harness pairs no started agent carried or covered; %d in the same second as an earlier comment", lostSame)),
		num("duplicates", dups, "agents started twice for one change and harness"),
		{"locks left", "n/a", fmt.Sprintf("%s holds no locks; runs still waiting or running after the drain: %d", input, left)},
		num("max active runs per scope", c.maxActive, fmt.Sprintf("running or admitted at once, any sample; agents at once: %d", c.maxAgents)),
		num("max waiting runs per scope settled", c.settled.maxWaiting, fmt.Sprintf("over %d settled scope samples", c.settled.samples)),
		num("newest change not pending settled", c.settled.stale, "settled samples whose newest change is owed and carried by no live run yet to start its agent"),
		num("transient samples", c.transient.samples, fmt.Sprintf("between a dispatch and its dispatcher's exit: %d with more than one run waiting (at most %d), "+
			"%d with the newest change not pending; the longest such state spanned %s of samples 20 ms apart", c.transient.twoWaiting, c.transient.maxWaiting, c.transient.stale, ms(c.transient.longest))),
		num("exits at the start-up check", c.superseded.Load(), fmt.Sprintf("runs that exited without their agent; of %d started", len(c.started))),
		num("stale starts", c.staleStarts, "agents started while a newer change's run of their scope, there when their check began, was owed"),
		num("api requests", requests, what),
	})
}

// subjectHarness is one subject's runs of one harness.
type subjectHarness struct {
	subject int
	harness string
}

// forgeDuplicates counts the agents started more than once for one
// comment and harness (and prints them), and returns the newest comment
// each subject and harness started an agent for. The caller holds c.mu.
func forgeDuplicates(c *forgeCounts) (int, map[subjectHarness]changepos.Pos) {
	newestRun := map[subjectHarness]changepos.Pos{}
	perChange := map[string][]int64{}
	for _, r := range c.started {
		if r.comment == 0 {
			continue
		}
		k := subjectHarness{c.commentOf[r.comment], harnessOf(r.scope)}
		ch := fmt.Sprintf("%s comment %d", r.scope, r.comment)
		perChange[ch] = append(perChange[ch], r.id)
		if p := (changepos.Pos{At: c.commentAt[r.comment], ID: r.comment}); p.After(newestRun[k]) {
			newestRun[k] = p
		}
	}
	dups := 0
	names := make([]string, 0, len(perChange))
	for ch := range perChange {
		names = append(names, ch)
	}
	sort.Strings(names)
	for _, ch := range names {
		ids := perChange[ch]
		dups += len(ids) - 1
		if len(ids) > 1 {
			fmt.Printf("chaos: duplicate %s: runs %v\n", ch, ids)
		}
	}
	return dups, newestRun
}

// sameSecond reports whether comment id was made in the same second as
// an earlier comment of its subject.
func sameSecond(c *forgeCounts, id int64) bool {
	at := c.commentAt[id].Truncate(time.Second)
	for o, t := range c.commentAt {
		if o < id && c.commentOf[o] == c.commentOf[id] && t.Truncate(time.Second).Equal(at) {
			return true
		}
	}
	return false
}

// harnessOf is the harness a scope key names.
func harnessOf(scopeKey string) string {
	h, _, _ := strings.Cut(scopeKey, ":")
	return h
}
