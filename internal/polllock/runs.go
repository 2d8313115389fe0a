package polllock

import (
	"slices"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// The runs a lock records (Lock.Runs) are shared by the poller that
// dispatched them and the runs themselves. An entry records a run when it
// has the run's driver and id. A dispatch the platform answered without an
// id (gha-dispatch's 204 on servers that return no run details) is
// recorded with its driver only; the first run of that driver to start
// claims it by writing its own id into it.

// same reports whether a and b name the same run: same driver and id.
func same(a, b plan.Ref) bool { return a.Driver == b.Driver && a.ID == b.ID }

// entryOf is the index in runs of run's entry: the one with its driver and
// id, else the first one of its driver without an id (claimable), else -1.
func entryOf(runs []plan.Ref, run plan.Ref) int {
	for i, r := range runs {
		if same(r, run) {
			return i
		}
	}
	for i, r := range runs {
		if r.Driver == run.Driver && r.ID == "" {
			return i
		}
	}
	return -1
}

// Claim is the runner's write of its own entry: an entry with run's driver
// and id is replaced, otherwise the first entry of its driver without an
// id is claimed; the entry moves to the end. A run without an id changes
// nothing.
func Claim(runs []plan.Ref, run plan.Ref) []plan.Ref {
	if run.ID == "" {
		return runs
	}
	return append(without(runs, run, false), run)
}

// Others is what remains of runs once run has ended: runs without run's
// entry (the one Claim would have written) and without entries of the
// plan-only drivers, which start no runs. A lock whose Others is empty has
// no run left to release it.
func Others(runs []plan.Ref, run plan.Ref) []plan.Ref { return without(runs, run, true) }

// without drops run's entry and every entry naming run, and with planOnly
// also the entries of plan-only drivers.
func without(runs []plan.Ref, run plan.Ref, dropPlans bool) []plan.Ref {
	mine := entryOf(runs, run)
	out := make([]plan.Ref, 0, len(runs)+1)
	for i, r := range runs {
		if i == mine || same(r, run) || (dropPlans && PlanOnly(r.Driver)) {
			continue
		}
		out = append(out, r)
	}
	if dropPlans && len(out) == 0 {
		return nil
	}
	return out
}

// Placeholders are the entries a lock is written with before n runs of
// driver are dispatched: one without an id per run, each claimed by a run
// of that driver when it starts (Claim), so that the runs share the lock
// and the last one to end deletes it, without the poller recording them
// after the dispatch.
func Placeholders(driver string, n int) []plan.Ref {
	if n <= 0 {
		return nil
	}
	out := make([]plan.Ref, n)
	for i := range out {
		out[i] = plan.Ref{Driver: driver}
	}
	return out
}

// Fits reports whether a lock written with entries runs serves the runs
// started: as many entries per driver as runs, so that each run claims one
// and none is left that no run will remove. Plan-only drivers do not count.
func Fits(runs, started []plan.Ref) bool {
	count := map[string]int{}
	for _, r := range runs {
		if !PlanOnly(r.Driver) {
			count[r.Driver]++
		}
	}
	for _, r := range started {
		if !PlanOnly(r.Driver) {
			count[r.Driver]--
		}
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// PlanOnly reports whether driver only prints a plan (json, gha-matrix):
// its references are plan entries, not runs that will release the lock.
// Current pollers do not record them; older lock values may carry them.
func PlanOnly(driver string) bool { return drivername.PrintsPlan(driver) }

// Record is the poller's correction of a lock whose runs took it over
// already (have: the entries it was written with, some claimed by runs
// that started first) to the runs it dispatched (refs): every ref not yet
// in have is appended, and the entries without an id that no ref uses are
// dropped (placeholders of planned runs that did not start, which no run
// would ever remove). A ref matches an entry with its driver and id; a ref
// without an id matches an entry of its driver that no ref names, which a
// run claimed with its own id. Entries with an id are kept: a run claimed
// them.
func Record(have, refs []plan.Ref) []plan.Ref {
	used := make([]bool, len(have))
	named := map[plan.Ref]bool{}
	for _, r := range refs {
		named[plan.Ref{Driver: r.Driver, ID: r.ID}] = true
	}
	var rest []plan.Ref
	for _, r := range refs {
		if i := slices.IndexFunc(have, func(h plan.Ref) bool { return same(h, r) }); i >= 0 && !used[i] {
			used[i] = true
			continue
		}
		rest = append(rest, r)
	}
	var added []plan.Ref
	for _, r := range rest {
		claimed := func(h plan.Ref) bool {
			return h.Driver == r.Driver && h.ID != "" && !named[plan.Ref{Driver: h.Driver, ID: h.ID}]
		}
		if r.ID == "" {
			if i := unusedIndex(have, used, claimed); i >= 0 {
				used[i] = true
				continue
			}
		}
		added = append(added, r)
	}
	var out []plan.Ref
	for i, h := range have {
		if used[i] || h.ID != "" {
			out = append(out, h)
		}
	}
	return append(out, added...)
}

// unusedIndex is the index of the first entry of have that is not used and
// satisfies ok, or -1.
func unusedIndex(have []plan.Ref, used []bool, ok func(plan.Ref) bool) int {
	for i, h := range have {
		if !used[i] && ok(h) {
			return i
		}
	}
	return -1
}
