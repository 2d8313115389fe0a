package plan

import (
	"errors"
	"fmt"
	"unicode/utf8"
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
// event's comment body cut to nothing: the change cannot be dispatched.
var ErrInputsTooLarge = errors.New("dispatch inputs too large")

// FitInputs renders r as the nine dispatch inputs, at most limit bytes in
// all (names and values). When they are larger, the event's comment body
// and instruction are cut, as little as needed, on a copy of the event,
// whose comment is then marked truncated with its original length (the
// run's own event is not changed). The command is never cut, so the run
// still says what it was asked to do.
func (r Run) FitInputs(limit int) (map[string]string, error) {
	in := r.render(r.Event)
	size := inputsSize(in)
	if size <= limit {
		return in, nil
	}
	c := r.Event.Transition.Comment
	if c == nil {
		return nil, fmt.Errorf("%w: %d bytes, limit %d, and the event has no comment to shorten", ErrInputsTooLarge, size, limit)
	}
	shortened := func(n int) map[string]string {
		ev := r.Event.Clone()
		ev.Transition.Comment.Shorten(n)
		return r.render(ev)
	}
	// The size grows with the kept length n: find the largest n that fits.
	lo, hi, best := 0, max(utf8.RuneCountInString(c.Body), utf8.RuneCountInString(c.Instruction))-1, -1
	for lo <= hi {
		mid := lo + (hi-lo)/2
		if inputsSize(shortened(mid)) <= limit {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("%w: %d bytes, limit %d, even with the comment body cut to nothing", ErrInputsTooLarge, size, limit)
	}
	return shortened(best), nil
}

// inputsSize is the size of inputs as counted against MaxInputsSize.
func inputsSize(in map[string]string) int {
	n := 0
	for k, v := range in {
		n += len(k) + len(v)
	}
	return n
}
