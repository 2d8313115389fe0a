package plan

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// MaxInputsSize bounds the dispatch inputs together: GitHub accepts
// at most 65,535 characters of workflow_dispatch inputs in all. Sizes are
// counted in bytes of the names and values, never fewer than GitHub's
// characters, so inputs within it are accepted. GitLab's bound (120 KiB per
// pipeline variable on GitLab.com, 128 KiB per environment variable on
// Linux) is looser than this for every variable the gitlab-pipeline driver
// sends (docs/events.md, "Size limits").
const MaxInputsSize = 65535

// ErrInputsTooLarge means a run's inputs exceed the limit even with the
// entity's activity dropped, the event's comment body cut to nothing and
// its labels dropped: the change cannot be dispatched.
var ErrInputsTooLarge = errors.New("dispatch inputs too large")

// CutBody is how many code points of an activity element's body (and
// instruction) FitInputs keeps when it cuts the element's text: its
// command, at most event.MaxCommand, survives.
const CutBody = 64

// FitInputs renders r as the dispatch inputs, at most limit bytes in all
// (names and values). When they are larger, copies of the entity and the
// event are cut, deterministically and as little as needed (the run's
// own are not changed), the entity first, since the event is what
// prompted the run:
//
//  1. the entity's activity texts, oldest element first: body and
//     instruction cut to CutBody code points, the element marked
//     truncated with its original length (kind, id, actor, command kept);
//  2. then the oldest elements themselves, the entity marked
//     activity_truncated (its state is never cut);
//  3. then the event's comment body and instruction, only as far as they
//     alone do not fit (sized without labels), the comment then marked
//     truncated with its original length; then the labels of
//     state.labels fill what is left, the longest prefix that fits,
//     marked state.labels_truncated when any was dropped. The command is
//     never cut, so the run still says what it was asked to do.
//
// An event-only run (no entity) is cut by step 3 alone, exactly as before
// runs carried entities.
func (r Run) FitInputs(limit int) (map[string]string, error) {
	in := r.render(r.Event, r.Entity)
	size := inputsSize(in)
	if size <= limit {
		return in, nil
	}
	en := r.fitEntity(limit)
	if in := r.render(r.Event, en); inputsSize(in) <= limit {
		return in, nil
	}
	ev := r.Event.Clone()
	labels, cut := ev.State.Labels, ev.State.LabelsTruncated
	// Sized as if every label were dropped, the mark included.
	ev.State.Labels, ev.State.LabelsTruncated = []string{}, cut || len(labels) > 0
	if inputsSize(r.render(ev, en)) > limit {
		var ok bool
		if ev, ok = r.fitComment(ev, en, limit); !ok {
			return nil, fmt.Errorf("%w: %d bytes, limit %d, even with the entity's activity and the comment body cut to nothing and no labels", ErrInputsTooLarge, size, limit)
		}
	}
	// The size grows with the labels kept: find the longest prefix that fits.
	n := largest(len(labels), func(n int) bool {
		ev.State.Labels = labels[:n]
		return inputsSize(r.render(ev, en)) <= limit
	})
	// Keeping every label drops the mark: the inputs only get smaller.
	ev.State.Labels, ev.State.LabelsTruncated = labels[:n], cut || n < len(labels)
	return r.render(ev, en), nil
}

// fitEntity returns a copy of r.Entity cut (steps 1 and 2 of FitInputs)
// until r's inputs with the whole event fit limit, or with no activity
// left when even that does not fit; nil for an event-only run.
func (r Run) fitEntity(limit int) *entity.Entity {
	if r.Entity == nil {
		return nil
	}
	all := r.Entity.Activity
	fits := func(en *entity.Entity) bool { return inputsSize(r.render(r.Event, en)) <= limit }
	// withTexts keeps the texts of the k newest elements whole.
	withTexts := func(k int) *entity.Entity {
		c := *r.Entity
		c.Activity = slices.Clone(all)
		for i := k; i < len(c.Activity); i++ {
			cutText(&c.Activity[i])
		}
		return &c
	}
	if cut := withTexts(0); !fits(cut) {
		// withElements keeps the k newest (cut) elements.
		withElements := func(k int) *entity.Entity {
			c := *cut
			c.Activity = cut.Activity[:k:k]
			c.ActivityTruncated = cut.ActivityTruncated || k < len(all)
			return &c
		}
		return withElements(largest(len(all), func(k int) bool { return fits(withElements(k)) }))
	}
	return withTexts(largest(len(all), func(k int) bool { return fits(withTexts(k)) }))
}

// cutText cuts a text element's body and instruction to CutBody code
// points and marks it truncated with its original length; label elements
// carry no text.
func cutText(el *entity.Element) {
	body, instr := event.Truncate(el.Body, CutBody), event.Truncate(el.Instruction, CutBody)
	if body == el.Body && instr == el.Instruction {
		return
	}
	if !el.Truncated {
		el.Truncated, el.OriginalLength = true, utf8.RuneCountInString(el.Body)
	}
	el.Body, el.Instruction = body, instr
}

// fitComment returns ev with its comment cut to the longest length with
// which r's inputs (with en) fit limit; false when even an empty body
// does not fit (or ev has no comment).
func (r Run) fitComment(ev *event.Event, en *entity.Entity, limit int) (*event.Event, bool) {
	c := ev.Transition.Comment
	if c == nil {
		return nil, false
	}
	shortened := func(n int) *event.Event {
		cp := ev.Clone()
		cp.Transition.Comment.Shorten(n)
		return cp
	}
	most := max(utf8.RuneCountInString(c.Body), utf8.RuneCountInString(c.Instruction)) - 1
	if inputsSize(r.render(shortened(0), en)) > limit {
		return nil, false
	}
	n := largest(most, func(n int) bool { return inputsSize(r.render(shortened(n), en)) <= limit })
	return shortened(n), true
}

// largest is the largest n in [0, hi] for which fits holds, given that
// fits(0) holds and fits is monotonic (true up to some n, then false).
func largest(hi int, fits func(int) bool) int {
	lo, best := 1, 0
	for lo <= hi {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best
}

// inputsSize is the size of inputs as counted against MaxInputsSize.
func inputsSize(in map[string]string) int {
	n := 0
	for k, v := range in {
		n += len(k) + len(v)
	}
	return n
}
