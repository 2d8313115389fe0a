package poll

import (
	"errors"
	"testing"
)

// TestItemTransitions pins the item state machine the cycle and the
// drivers share: each transition lands in its state, Attempt only records
// that a lock write was sent, a failure keeps its error, and the cycle's
// release moves only a held item.
func TestItemTransitions(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		steps     []func(*Item)
		want      State
		attempted bool
		err       error
	}{
		{"discovered", nil, StateSelected, false, nil},
		{"skipped", []func(*Item){(*Item).Skip}, StateSkipped, false, nil},
		{"held", []func(*Item){(*Item).Attempt, (*Item).Hold}, StateHeld, true, nil},
		{"lock write failed after it was sent", []func(*Item){(*Item).Attempt, func(it *Item) { it.Fail(boom) }}, StateFailed, true, boom},
		{"re-read failed before locking", []func(*Item){func(it *Item) { it.Fail(boom) }}, StateFailed, false, boom},
		{"lost at verification", []func(*Item){(*Item).Attempt, (*Item).Hold, (*Item).Lose}, StateLost, true, nil},
		{"vanished while held", []func(*Item){(*Item).Attempt, (*Item).Hold, (*Item).Vanish}, StateGone, true, nil},
		{"released", []func(*Item){(*Item).Attempt, (*Item).Hold, (*Item).MarkReleased}, StateReleased, true, nil},
		{"release keeps a failure", []func(*Item){(*Item).Attempt, func(it *Item) { it.Fail(boom) }, (*Item).MarkReleased}, StateFailed, true, boom},
		{"release keeps a lost lock", []func(*Item){(*Item).Attempt, (*Item).Hold, (*Item).Lose, (*Item).MarkReleased}, StateLost, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := &Item{ID: "P-1"}
			for _, step := range tc.steps {
				step(it)
			}
			if it.State() != tc.want || it.Attempted() != tc.attempted || it.Err() != tc.err {
				t.Fatalf("state %v attempted %v err %v; want %v %v %v", it.State(), it.Attempted(), it.Err(), tc.want, tc.attempted, tc.err)
			}
		})
	}
	for s, want := range map[State]string{StateSelected: "selected", StateReleased: "released", State(42): "state(42)"} {
		if s.String() != want {
			t.Errorf("State(%d).String() = %q, want %q", s, s.String(), want)
		}
	}
}
