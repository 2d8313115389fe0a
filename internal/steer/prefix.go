package steer

import (
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
)

// Record is one run a platform holds for the scope after the active
// run's change: a GitHub run, a GitLab pipeline or a local queued run,
// with the change its idempotency key names.
type Record struct {
	Pos changepos.Pos
	// Waiting: the run has not started (queued, pending, waiting). A
	// record that is not waiting was cancelled while it waited: its change
	// was coalesced into a newer pending run.
	Waiting bool
}

// Comment is one comment (or note) of the item after the active run's
// change, read from the platform and decided as on the dispatch path.
type Comment struct {
	ID  int64
	Pos changepos.Pos
	// Steer: the comment passes the gate and this harness's trigger on
	// this scope (the core's decision, with the entity filter for an
	// entity-source harness).
	Steer bool
	Msg   Message
}

// Prefix is the rule that keeps a pending run from being given up while
// it still carries a change nobody delivered: the follow-ups, in order
// of position, that the newest waiting run's change and everything
// coalesced into it since own (the active run's change) consist of.
//
// Everything in (own, P], P the newest waiting record's change, is walked
// in position order: a comment that steers is taken; a comment that does
// not steer is passed over, unless a run was dispatched for it (the
// platform decided otherwise: its run stays); a record with no comment
// (a label change, a review, a comment that could not be read) ends the
// prefix. So the follow-ups taken are always a prefix of what the
// pending run carries, and the pending run is consumed (its change
// taken) only when all of it was. Without a waiting record nothing is
// pending and nothing is taken.
func Prefix(own changepos.Pos, recs []Record, cs []Comment) []Comment {
	var top changepos.Pos
	for _, r := range recs {
		if r.Waiting && r.Pos.After(own) && r.Pos.After(top) {
			top = r.Pos
		}
	}
	if top.IsZero() {
		return nil
	}
	type step struct {
		pos     changepos.Pos
		comment *Comment
		run     bool
	}
	by := map[changepos.Pos]*step{}
	var steps []*step
	at := func(p changepos.Pos) *step {
		k := changepos.Pos{At: time.UnixMilli(p.At.UnixMilli()).UTC(), ID: p.ID}
		if s, ok := by[k]; ok {
			return s
		}
		s := &step{pos: k}
		by[k] = s
		steps = append(steps, s)
		return s
	}
	for _, r := range recs {
		if r.Pos.After(own) && !r.Pos.After(top) {
			at(r.Pos).run = true
		}
	}
	for i := range cs {
		if cs[i].Pos.After(own) && !cs[i].Pos.After(top) {
			at(cs[i].Pos).comment = &cs[i]
		}
	}
	slices.SortFunc(steps, func(a, b *step) int { return a.pos.Compare(b.pos) })
	var out []Comment
	for _, s := range steps {
		switch {
		case s.comment != nil && s.comment.Steer:
			out = append(out, *s.comment)
		case s.comment != nil && !s.run:
			// not a request of this harness: no run carries it
		default:
			return out
		}
	}
	return out
}

// After is the rule where no run is pending (a Jira issue under its poll
// lock, whose pollers skip it while the run holds it): every comment
// after own that steers, in order. Each is recorded on its own, and the
// next poller leaves out exactly those for this harness.
func After(own changepos.Pos, cs []Comment) []Comment {
	var out []Comment
	for _, c := range cs {
		if c.Steer && c.Pos.After(own) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Comment) int { return a.Pos.Compare(b.Pos) })
	return out
}
