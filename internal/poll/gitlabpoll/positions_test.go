package gitlabpoll

import (
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/input/gitlabevent"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
)

// TestKeyIndexNewestPosition: a scope's checkpoint is the newest change
// position its pipelines' keys carry, by time then id; a bare time (a
// change without an id, or a pipeline of an older fullsend) is before
// every id of its instant; a version key names no change.
func TestKeyIndexNewestPosition(t *testing.T) {
	s := time.Date(2026, 11, 30, 12, 0, 7, 0, time.UTC)
	tail := project + ":gitlab:change_proposal:1"
	key := func(h string, p changepos.Pos) string { return changepos.Key(h+":"+tail, p) }
	tests := []struct {
		name string
		keys []string
		want changepos.Pos
	}{
		{"note ids of one second", []string{key("triage", changepos.Pos{At: s, ID: 5}), key("review", changepos.Pos{At: s, ID: 9})},
			changepos.Pos{At: s, ID: 9}},
		{"a bare time before the ids of its second", []string{key("triage", changepos.Pos{At: s, ID: 2}), key("triage", changepos.At(s))},
			changepos.Pos{At: s, ID: 2}},
		{"a later second", []string{key("triage", changepos.At(s.Add(time.Second))), key("triage", changepos.Pos{At: s, ID: 99})},
			changepos.At(s.Add(time.Second))},
		{"a version names no change", []string{"triage:" + tail + "@v1:sha256:ab", key("triage", changepos.Pos{At: s, ID: 3})},
			changepos.Pos{At: s, ID: 3}},
		{"not a scoped key", []string{"triage@" + changepos.ID(changepos.At(s))}, changepos.Pos{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newKeyIndex(nil, project)
			for _, key := range tc.keys {
				k.note(key)
			}
			if got := k.newest(tail); got.Compare(tc.want) != 0 {
				t.Fatalf("newest = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAdvanceHandled: the driver takes a subject as handled, and its
// checkpoint as the position to detect from, only for a checkpoint that
// covers its newest change, with nothing to retry and no dispatch of
// unknown outcome; handled only when no change of it is left for later.
func TestAdvanceHandled(t *testing.T) {
	s := time.Date(2026, 11, 30, 12, 0, 7, 0, time.UTC)
	newest := changepos.Pos{At: s, ID: 6}
	intents := map[string]lastcheck.Intent{"triage": {Key: "k", Change: s, TS: s}}
	tests := []struct {
		name    string
		cp      poll.Checkpoint
		cutoff  time.Time
		handled bool
		done    changepos.Pos
	}{
		{"past the newest change", poll.Checkpoint{At: s, ID: 6}, s, true, newest},
		{"the intent written before dispatching", poll.Checkpoint{At: s, ID: 2, Intents: intents}, s, false, changepos.Pos{}},
		{"an intent left by a dispatch of unknown outcome", poll.Checkpoint{At: s, ID: 6, Intents: intents}, s, false, changepos.Pos{}},
		{"the checkpoint before the newest change", poll.Checkpoint{At: s, ID: 5}, s, false, changepos.Pos{}},
		{"a harness to retry", poll.Checkpoint{At: s, ID: 6, Retry: map[string]time.Time{"triage": s.Add(-time.Minute)}}, s, false, changepos.Pos{}},
		{"changes left for later", poll.Checkpoint{At: s, ID: 6}, s.Add(-time.Second), false, newest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Poller{handled: map[string]time.Time{}, done: map[string]changepos.Pos{}}
			d := NewDriver(p, nil)
			mr := &gitlab.MergeRequest{BasicMergeRequest: gitlab.BasicMergeRequest{IID: 1}}
			d.w.Put(subject{Subject: gitlabevent.Subject{MergeRequest: mr}, updated: s})
			d.w.SetNewest("!1", newest)
			it := &poll.Item{ID: "!1", Cutoff: forgepoll.MinTime(s, tc.cutoff)}
			if err := d.Advance(t.Context(), it, tc.cp); err != nil {
				t.Fatal(err)
			}
			if _, got := p.handled["!1"]; got != tc.handled {
				t.Fatalf("handled %v, want %v", got, tc.handled)
			}
			if got := p.done["!1"]; got.Compare(tc.done) != 0 {
				t.Fatalf("done %v, want %v", got, tc.done)
			}
		})
	}
}

// TestRememberCompleteSecondOnly: a swept entity is remembered at its
// subject's updated_at only once that second is complete on GitLab's
// clock (see the github-poll twin).
func TestRememberCompleteSecondOnly(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 7, 400_000_000, time.UTC)
	for _, tc := range []struct {
		updated time.Time
		kept    bool
	}{
		{now.Truncate(time.Second), false},
		{time.Date(2026, 11, 30, 12, 0, 5, 0, time.UTC), false}, // GitLab's clock may still be in it: this host may be ClockError ahead
		{time.Date(2026, 11, 30, 12, 0, 4, 0, time.UTC), true},  // over by 12:00:05, at least 2.4s ago
	} {
		p := &Poller{o: Options{Now: func() time.Time { return now }}}
		p.remember(subject{Subject: gitlabevent.Subject{Issue: &gitlab.Issue{IID: 1}}, updated: tc.updated}, &entity.Entity{})
		if kept := p.ents.Has("#1"); kept != tc.kept {
			t.Errorf("updated %s at %s: kept %v, want %v", tc.updated.Format(time.StampMilli), now.Format(time.StampMilli), kept, tc.kept)
		}
	}
}
