package plan

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// MaxInputsSize bounds the nine dispatch inputs together: GitHub accepts
// at most 65,535 characters of workflow_dispatch inputs in all. Sizes are
// counted in bytes of the names and values, never fewer than GitHub's
// characters, so inputs within it are accepted. GitLab's bound (120 KiB per
// pipeline variable on GitLab.com, 128 KiB per environment variable on
// Linux) is looser than this for every variable the gitlab-pipeline driver
// sends (docs/events.md, "Size limits").
const MaxInputsSize = 65535

// ErrInputsTooLarge means a run's inputs exceed the limit even with the
// event's comment body cut to nothing and its labels dropped: the change
// cannot be dispatched.
var ErrInputsTooLarge = errors.New("dispatch inputs too large")

// FitInputs renders r as the nine dispatch inputs, at most limit bytes in
// all (names and values). When they are larger, a copy of the event is
// cut, deterministically and as little as needed (the run's own event is
// not changed): first the comment body and instruction, only as far as
// they alone do not fit (sized without labels), the comment then marked
// truncated with its original length; then the labels of state.labels
// fill what is left, the longest prefix that fits, marked
// state.labels_truncated when any was dropped. The command is never cut,
// so the run still says what it was asked to do.
func (r Run) FitInputs(limit int) (map[string]string, error) {
	in := r.render(r.Event)
	size := inputsSize(in)
	if size <= limit {
		return in, nil
	}
	ev := r.Event.Clone()
	labels, cut := ev.State.Labels, ev.State.LabelsTruncated
	// Sized as if every label were dropped, the mark included.
	ev.State.Labels, ev.State.LabelsTruncated = []string{}, cut || len(labels) > 0
	if inputsSize(r.render(ev)) > limit {
		var ok bool
		if ev, ok = r.fitComment(ev, limit); !ok {
			return nil, fmt.Errorf("%w: %d bytes, limit %d, even with the comment body cut to nothing and no labels", ErrInputsTooLarge, size, limit)
		}
	}
	// The size grows with the labels kept: find the longest prefix that fits.
	n := largest(len(labels), func(n int) bool {
		ev.State.Labels = labels[:n]
		return inputsSize(r.render(ev)) <= limit
	})
	// Keeping every label drops the mark: the inputs only get smaller.
	ev.State.Labels, ev.State.LabelsTruncated = labels[:n], cut || n < len(labels)
	return r.render(ev), nil
}

// fitComment returns ev with its comment cut to the longest length with
// which r's inputs fit limit; false when even an empty body does not fit
// (or ev has no comment).
func (r Run) fitComment(ev *event.Event, limit int) (*event.Event, bool) {
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
	if inputsSize(r.render(shortened(0))) > limit {
		return nil, false
	}
	n := largest(most, func(n int) bool { return inputsSize(r.render(shortened(n))) <= limit })
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
