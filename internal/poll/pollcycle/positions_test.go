package pollcycle_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
)

// TestCheckpointPositions: a checkpoint's position is its time, then its
// id; a harness to retry is at its (id-less) retry time when older.
func TestCheckpointPositions(t *testing.T) {
	older := t0.Add(-time.Minute)
	tests := []struct {
		name   string
		cp     poll.Checkpoint
		posOfA changepos.Pos
		min    changepos.Pos
	}{
		{"time only", poll.Checkpoint{At: t0}, changepos.At(t0), changepos.At(t0)},
		{"time and id", poll.Checkpoint{At: t0, ID: 7}, changepos.Pos{At: t0, ID: 7}, changepos.Pos{At: t0, ID: 7}},
		{"another harness retries", poll.Checkpoint{At: t0, ID: 7, Retry: map[string]time.Time{"b": older}},
			changepos.Pos{At: t0, ID: 7}, changepos.At(older)},
		{"this harness retries", poll.Checkpoint{At: t0, ID: 7, Retry: map[string]time.Time{"a": older}},
			changepos.At(older), changepos.At(older)},
		{"a retry not older is no retry", poll.Checkpoint{At: t0, ID: 7, Retry: map[string]time.Time{"a": t0}},
			changepos.Pos{At: t0, ID: 7}, changepos.Pos{At: t0, ID: 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cp.PosOf("a"); got.Compare(tc.posOfA) != 0 {
				t.Errorf("PosOf(a) = %v, want %v", got, tc.posOfA)
			}
			if got := tc.cp.MinPos(); got.Compare(tc.min) != 0 {
				t.Errorf("MinPos = %v, want %v", got, tc.min)
			}
		})
	}
}

// TestWindowByPosition: the window holds the changes after the
// checkpoint's position (time, then id: changes of one second are told
// apart by their ids) and not after the cutoff.
func TestWindowByPosition(t *testing.T) {
	at := func(d time.Duration, id int64) poll.Change { return poll.Change{At: t0.Add(d), ID: id} }
	changes := []poll.Change{at(-time.Second, 9), at(0, 0), at(0, 3), at(0, 5), at(0, 6), at(time.Second, 1)}
	tests := []struct {
		name   string
		base   poll.Checkpoint
		cutoff time.Time
		want   []changepos.Pos
	}{
		{"after the id in the checkpoint's second", poll.Checkpoint{At: t0, ID: 5}, t0.Add(time.Second),
			[]changepos.Pos{{At: t0, ID: 6}, {At: t0.Add(time.Second), ID: 1}}},
		{"a bare time covers no id of its second", poll.Checkpoint{At: t0}, t0,
			[]changepos.Pos{{At: t0, ID: 3}, {At: t0, ID: 5}, {At: t0, ID: 6}}},
		{"the cutoff's second is in, every id", poll.Checkpoint{At: t0.Add(-time.Minute)}, t0,
			[]changepos.Pos{{At: t0.Add(-time.Second), ID: 9}, changepos.At(t0), {At: t0, ID: 3}, {At: t0, ID: 5}, {At: t0, ID: 6}}},
		{"a retry position rewinds the window", poll.Checkpoint{At: t0, ID: 6, Retry: map[string]time.Time{"b": t0.Add(-time.Minute)}}, t0,
			[]changepos.Pos{{At: t0.Add(-time.Second), ID: 9}, changepos.At(t0), {At: t0, ID: 3}, {At: t0, ID: 5}, {At: t0, ID: 6}}},
		{"nothing after the newest", poll.Checkpoint{At: t0.Add(time.Second), ID: 1}, t0.Add(time.Second), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := &poll.Item{ID: "I-1", Base: tc.base, Cutoff: tc.cutoff, Changes: changes}
			var got []changepos.Pos
			for _, c := range it.Window() {
				got = append(got, c.Pos())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("window %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].Compare(tc.want[i]) != 0 {
					t.Fatalf("window %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// keyedOut is fakeOut on a platform that records idempotency keys: the
// cycle keys its runs and writes intents; it has none of the runs.
type keyedOut struct {
	*fakeOut
	mu     sync.Mutex
	lookup []string // the keys asked for
}

func (o *keyedOut) FindDispatched(_ context.Context, run plan.Run, _ time.Time) (*plan.Ref, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lookup = append(o.lookup, run.WorkItem.IdempotencyKey)
	return nil, false, nil
}

// TestCycleKeysByPosition: the cycle coalesces an item's changes into the
// run of the newest by position (an id breaks a tie of times), keys the
// run with that position, offers a harness nothing at or before its
// checkpoint's position, and takes an interrupted dispatch's change
// position from its intent's key: a change after it supersedes it
// without asking the platform; the same change is asked about.
func TestCycleKeysByPosition(t *testing.T) {
	ms := t0.UnixMilli()
	withIDs := func(ids ...int64) *poll.Item {
		it := item("I-1", make([]string, len(ids))...)
		for i := range it.Changes {
			it.Changes[i].At, it.Changes[i].ID = t0, ids[i]
			it.Changes[i].Event.Transition.Comment.Body, it.Changes[i].Event.Transition.Comment.Command = "/run", "/run"
		}
		it.Base, it.Cutoff = poll.Checkpoint{At: t0.Add(-time.Minute)}, t0
		return it
	}
	intent := func(key string) map[string]lastcheck.Intent {
		return map[string]lastcheck.Intent{"a": {Key: key, Change: t0, TS: t0.Add(-time.Hour)}}
	}
	key := func(suffix string) string { return "a:acme/platform:jira:work_item:1@" + suffix }
	tests := []struct {
		name    string
		ids     []int64
		base    poll.Checkpoint
		wantKey string // "" : no run
		lookup  []string
	}{
		{"newest id of the second, in any order", []int64{6, 9, 3}, poll.Checkpoint{At: t0.Add(-time.Minute)}, key(itoa(ms) + ".9"), nil},
		{"after the checkpoint's id", []int64{4, 5}, poll.Checkpoint{At: t0, ID: 4}, key(itoa(ms) + ".5"), nil},
		{"nothing after the checkpoint's id", []int64{4, 5}, poll.Checkpoint{At: t0, ID: 5}, "", nil},
		{"a change with no id", []int64{0}, poll.Checkpoint{At: t0.Add(-time.Minute)}, key(itoa(ms)), nil},
		{"the intent's change", []int64{5}, poll.Checkpoint{At: t0, ID: 4, Intents: intent(key(itoa(ms) + ".5"))},
			key(itoa(ms) + ".5"), []string{key(itoa(ms) + ".5")}},
		{"a change after the intent's", []int64{5, 6}, poll.Checkpoint{At: t0, ID: 4, Intents: intent(key(itoa(ms) + ".5"))},
			key(itoa(ms) + ".6"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := withIDs(tc.ids...)
			it.Base = tc.base
			out := &keyedOut{fakeOut: &fakeOut{}}
			o := pollcycle.Options{Driver: &fakeDriver{Items: []*poll.Item{it}}, Core: fakeCore{}, Output: out, JitterMax: -1,
				Now: func() time.Time { return t0.Add(time.Hour) }}
			if _, err := pollcycle.Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantKey == "" && len(out.Runs) != 0:
				t.Fatalf("dispatched %v, want nothing", out.Runs)
			case tc.wantKey != "" && (len(out.Runs) != 1 || out.Runs[0].WorkItem.IdempotencyKey != tc.wantKey):
				t.Fatalf("dispatched %+v, want one run keyed %s", out.Runs, tc.wantKey)
			}
			if len(out.lookup) != len(tc.lookup) || len(tc.lookup) > 0 && out.lookup[0] != tc.lookup[0] {
				t.Fatalf("asked the platform about %v, want %v", out.lookup, tc.lookup)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestCheckpointCovers: a checkpoint covers an item's changes up to its
// newest only past it, with nothing to retry and no intent left.
func TestCheckpointCovers(t *testing.T) {
	newest := changepos.Pos{At: t0, ID: 6}
	intents := map[string]lastcheck.Intent{"a": {Key: "k", Change: t0, TS: t0}}
	tests := []struct {
		name string
		cp   poll.Checkpoint
		want bool
	}{
		{"at the newest", poll.Checkpoint{At: t0, ID: 6}, true},
		{"a later second", poll.Checkpoint{At: t0.Add(time.Second)}, true},
		{"before it in its second", poll.Checkpoint{At: t0, ID: 5}, false},
		{"a bare time of its second", poll.Checkpoint{At: t0}, false},
		{"an intent", poll.Checkpoint{At: t0, ID: 6, Intents: intents}, false},
		{"a harness to retry", poll.Checkpoint{At: t0, ID: 6, Retry: map[string]time.Time{"a": t0.Add(-time.Minute)}}, false},
	}
	for _, tc := range tests {
		if got := tc.cp.Covers(newest); got != tc.want {
			t.Errorf("%s: Covers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestWindowFilter: the filter a backstop's detection maps through keeps
// the window's changes and tells whether one after the checkpoint was
// left for a later cycle.
func TestWindowFilter(t *testing.T) {
	it := &poll.Item{ID: "I-1", Base: poll.Checkpoint{At: t0, ID: 5}, Cutoff: t0.Add(time.Second)}
	tests := []struct {
		pos   changepos.Pos
		keep  bool
		later bool // after this and the ones before
	}{
		{changepos.Pos{At: t0, ID: 5}, false, false},
		{changepos.Pos{At: t0, ID: 6}, true, false},
		{changepos.At(t0.Add(time.Second)), true, false},
		{changepos.Pos{At: t0.Add(2 * time.Second), ID: 1}, false, true},
	}
	f := it.Filter()
	for _, tc := range tests {
		if got := f.Keep(tc.pos); got != tc.keep || f.Later() != tc.later {
			t.Errorf("Keep(%v) = %v (later %v), want %v (later %v)", tc.pos, got, f.Later(), tc.keep, tc.later)
		}
	}
}
