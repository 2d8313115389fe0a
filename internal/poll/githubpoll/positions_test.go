package githubpoll

import (
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
)

// TestRunIndexNewestPosition: a scope's checkpoint is the newest change
// position its runs' titles carry, by time then id; a bare time (a change
// without an id, or a run titled by an older fullsend) is before every id
// of its second; scheduled runs' version keys name no change.
func TestRunIndexNewestPosition(t *testing.T) {
	s := time.Date(2026, 11, 30, 12, 0, 7, 0, time.UTC)
	ms := s.UnixMilli()
	tail := "acme/platform:github:work_item:1"
	title := func(h, suffix string) string { return "fullsend " + h + " " + h + ":" + tail + "@" + suffix }
	tests := []struct {
		name   string
		titles []string
		want   changepos.Pos
	}{
		{"ids of one second", []string{title("triage", fmtMs(ms, 5)), title("review", fmtMs(ms, 9)), title("triage", fmtMs(ms, 7))},
			changepos.Pos{At: s, ID: 9}},
		{"a bare time before the ids of its second", []string{title("triage", fmtMs(ms, 0)), title("triage", fmtMs(ms, 2))},
			changepos.Pos{At: s, ID: 2}},
		{"a later second first", []string{title("triage", fmtMs(ms+1000, 0)), title("triage", fmtMs(ms, 99))},
			changepos.At(s.Add(time.Second))},
		{"a version names no change", []string{title("triage", "v1:sha256:ab"), title("triage", fmtMs(ms, 3))},
			changepos.Pos{At: s, ID: 3}},
		{"no key", []string{"fullsend triage triage:" + tail}, changepos.Pos{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newRunIndex(&Poller{})
			var runs []*gogithub.WorkflowRun
			for i, ti := range tc.titles {
				runs = append(runs, &gogithub.WorkflowRun{ID: gogithub.Ptr(int64(i + 1)), DisplayTitle: gogithub.Ptr(ti),
					Status: gogithub.Ptr(statusCompleted)})
			}
			k.index(runs)
			if got := k.newest(tail); got.Compare(tc.want) != 0 {
				t.Fatalf("newest = %v, want %v", got, tc.want)
			}
		})
	}
}

func fmtMs(ms, id int64) string {
	return changepos.ID(changepos.Pos{At: time.UnixMilli(ms), ID: id})
}

// TestAdvanceHandled: the driver takes an item as handled (skipped until
// its updated_at moves) only for a checkpoint that covers its newest
// change, with nothing to retry and no dispatch of unknown outcome, and
// only when no change of it is left for later.
func TestAdvanceHandled(t *testing.T) {
	s := time.Date(2026, 11, 30, 12, 0, 7, 0, time.UTC)
	newest := changepos.Pos{At: s, ID: 6}
	intents := map[string]lastcheck.Intent{"triage": {Key: "k", Change: s, TS: s}}
	tests := []struct {
		name    string
		cp      poll.Checkpoint
		cutoff  time.Time
		handled bool
	}{
		{"past the newest change", poll.Checkpoint{At: s, ID: 6}, s, true},
		{"a later second", poll.Checkpoint{At: s.Add(time.Second)}, s.Add(time.Second), true},
		{"the intent written before dispatching", poll.Checkpoint{At: s, ID: 2, Intents: intents}, s, false},
		{"an intent left by a dispatch of unknown outcome", poll.Checkpoint{At: s, ID: 6, Intents: intents}, s, false},
		{"the checkpoint before the newest change (refused dispatches cleared)", poll.Checkpoint{At: s, ID: 5}, s, false},
		{"a harness to retry", poll.Checkpoint{At: s, ID: 6, Retry: map[string]time.Time{"triage": s.Add(-time.Minute)}}, s, false},
		{"changes left for later", poll.Checkpoint{At: s, ID: 6}, s.Add(-time.Second), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Poller{handled: map[int]time.Time{}}
			d := NewDriver(p, nil)
			d.w.Put(subject{issue: &gogithub.Issue{Number: gogithub.Ptr(1)}, updated: s})
			d.w.SetNewest("#1", newest)
			it := &poll.Item{ID: "#1", Cutoff: forgepoll.MinTime(s, tc.cutoff)}
			if err := d.Advance(t.Context(), it, tc.cp); err != nil {
				t.Fatal(err)
			}
			if _, got := p.handled[1]; got != tc.handled {
				t.Fatalf("handled %v, want %v", got, tc.handled)
			}
		})
	}
}

// TestRememberCompleteSecondOnly: a swept entity is remembered at its
// item's updated_at only once that second is complete on GitHub's clock;
// a comment made later in the same second leaves updated_at unchanged,
// so an entity remembered earlier would hide it from scheduled discovery.
func TestRememberCompleteSecondOnly(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 7, 400_000_000, time.UTC)
	for _, tc := range []struct {
		updated time.Time
		kept    bool
	}{
		{now.Truncate(time.Second), false},
		{time.Date(2026, 11, 30, 12, 0, 5, 0, time.UTC), false}, // GitHub's clock may still be in it: this host may be ClockError ahead
		{time.Date(2026, 11, 30, 12, 0, 4, 0, time.UTC), true},  // over by 12:00:05, at least 2.4s ago
	} {
		p := &Poller{o: Options{Now: func() time.Time { return now }}}
		p.remember(subject{issue: &gogithub.Issue{Number: gogithub.Ptr(1)}, updated: tc.updated}, &entity.Entity{})
		if kept := p.ents.Has(1); kept != tc.kept {
			t.Errorf("updated %s at %s: kept %v, want %v", tc.updated.Format(time.StampMilli), now.Format(time.StampMilli), kept, tc.kept)
		}
	}
}
