package newest

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
)

// Verdict is what a dispatcher does with its run after reading the
// runs of its scope (Settle).
type Verdict struct {
	// Keep: the dispatcher's run stays; when false the dispatcher cancels
	// it. A run that started is cancelled only as a duplicate of its own
	// change.
	Keep bool
	// Over is the run it yields to (0 when kept): the one that carries a
	// newer change, or the Survivor of its own change.
	Over int64
	// Revive is a cancelled run of a newer change than every live run of
	// the scope carries, cancelled at or after since: the platform's
	// concurrency group dropped it (GitHub cancels the pending run when
	// another run is queued) because the dispatcher's run, older, was
	// queued after it. The dispatcher re-runs it (0: nothing to revive).
	Revive int64
}

// Settle is the rule every dispatcher applies, after its write (a
// dispatch, or a re-run), to its run ours and the scope's runs (ours may
// be among them), since being the time of that write on the platform's
// clock:
//
//   - of the live runs carrying ours' key, the Survivor stays: ours yields
//     to an earlier one (a duplicate dispatch of the same change by
//     another path);
//   - ours, not started, yields to a live run carrying a newer change: that
//     run covers ours' change, so ours is not needed;
//   - a run the platform cancelled since, carrying a newer change than
//     every live run, is revived, and ours, not started, yields to it.
//
// A key without a change (a scheduled run's entity version) is settled
// against the attempts of the same key that have not finished: one that
// finished is an earlier attempt, not a duplicate. A zero since is a
// platform that cancels no run itself (GitLab): nothing is revived.
func Settle(ours Run, runs []Run, since time.Time) Verdict {
	if ours.State == Cancelled {
		return Verdict{}
	}
	c, isChange := Change(ours.Key)
	same := []Run{ours}
	for _, r := range runs {
		if r.ID != ours.ID && r.Key == ours.Key && (isChange || r.State != Finished) {
			same = append(same, r)
		}
	}
	w, _ := Survivor(same)
	if !isChange {
		if w != ours.ID {
			return Verdict{Over: w}
		}
		return Verdict{Keep: true}
	}
	others := without(runs, ours.ID)
	// A dropped run is newer than every live run: it is revived even when
	// an earlier run of ours' change, or a live run of a change between
	// ours and it, makes ours redundant.
	if r, ok := dropped(c, others, since); ok {
		return Verdict{Keep: ours.started() && w == ours.ID, Over: r.ID, Revive: r.ID}
	}
	if w != ours.ID {
		return Verdict{Over: w}
	}
	if n, ok := Newest(others); ok {
		if p, _ := Change(n.Key); p.After(c) {
			if ours.started() {
				return Verdict{Keep: true}
			}
			return Verdict{Over: n.ID}
		}
	}
	return Verdict{Keep: true}
}

// dropped is the cancelled run of the newest change after floor among
// runs, when no live run carries that change or a newer one and it was
// cancelled at or after since (to the second, GitHub's precision).
func dropped(floor changepos.Pos, runs []Run, since time.Time) (Run, bool) {
	var best Run
	var bestPos changepos.Pos
	found := false
	if since.IsZero() {
		return best, false
	}
	s := since.Truncate(time.Second)
	for _, r := range runs {
		p, ok := Change(r.Key)
		if !ok || r.live() || !p.After(floor) || r.Ended.Truncate(time.Second).Before(s) || covered(p, runs) {
			continue
		}
		if cp := p.Compare(bestPos); !found || cp > 0 || cp == 0 && r.Ended.After(best.Ended) {
			best, bestPos, found = r, p, true
		}
	}
	return best, found
}

// covered reports whether a live run of runs carries the change at p or
// a newer one.
func covered(p changepos.Pos, runs []Run) bool {
	for _, r := range runs {
		if q, ok := Change(r.Key); ok && r.live() && q.Compare(p) >= 0 {
			return true
		}
	}
	return false
}

func without(runs []Run, id int64) []Run {
	out := make([]Run, 0, len(runs))
	for _, r := range runs {
		if r.ID != id {
			out = append(out, r)
		}
	}
	return out
}

// Displaced lists the changes of runs (one scope's) whose runs were all
// cancelled by an older change's run queued after them, and that no
// live run covers: GitHub's concurrency group cancels the pending run
// when another is queued, so a dispatcher of an older change that died
// before it could revive the newer one leaves that change unhandled. A
// backstop dispatches such a change again. Runs created in one second
// are taken as queued after one another either way (GitHub's times have
// one-second resolution).
func Displaced(runs []Run) []changepos.Pos {
	var out []changepos.Pos
	seen := map[string]bool{}
	for _, r := range runs {
		p, ok := Change(r.Key)
		if !ok || r.live() || seen[r.Key] || covered(p, runs) {
			continue
		}
		for _, o := range runs {
			if q, ok := Change(o.Key); ok && q.Compare(p) < 0 && !o.Created.Truncate(time.Second).Before(r.Created.Truncate(time.Second)) {
				seen[r.Key] = true
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// Supersedes reports whether run a makes run b redundant (b, waiting, is
// to yield to a): a carries a newer change than b, or b's own change and
// comes first (Survivor); when either carries no change, a was created
// after b. GitLab's superseded waiters are settled by it.
func Supersedes(a, b Run) bool {
	pa, okA := Change(a.Key)
	pb, okB := Change(b.Key)
	if okA && okB {
		if c := pa.Compare(pb); c != 0 {
			return c > 0
		}
		return a.Key == b.Key && first(a, b) < 0
	}
	if a.Seq != 0 && b.Seq != 0 {
		return a.Seq > b.Seq
	}
	return a.Created.After(b.Created)
}
