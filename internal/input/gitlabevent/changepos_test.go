package gitlabevent

import (
	"context"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestChangePos: the position the driver confirms for a change, the one
// gitlab-poll detects for it (NotePos, LabelEventPos): a note's creation
// and id, the newest confirming label event's creation and id, an
// opening's creation, else the subject's last update. Each webhook is
// read right after its change (the driver confirms the current state).
func TestChangePos(t *testing.T) {
	f, ctx := newFixture(t), context.Background()
	is, _, err := f.sim.CreateIssue("acme/platform", f.alice.ID, "t", "d", nil)
	must(t, err)
	var noteID int64
	labelEvent := func(i int) changepos.Pos {
		les, err := f.api.LabelEvents(ctx, "acme/platform", NoteableIssue, is.IID)
		must(t, err)
		return LabelEventPos(les[i])
	}
	tests := []struct {
		name   string
		change func() []byte
		want   func() changepos.Pos
	}{
		{"opening", func() []byte { return f.hooks["issue_open"] }, func() changepos.Pos {
			first, err := f.api.Issue(ctx, "acme/platform", 1)
			must(t, err)
			return changepos.At(first.CreatedAt.UTC())
		}},
		{"note", func() []byte {
			n, body, err := f.sim.AddNote("acme/platform", gitlabsim.NoteableIssue, is.IID, f.alice.ID, "/fs-triage")
			must(t, err)
			noteID = n.ID
			return body
		}, func() changepos.Pos {
			n, err := f.api.Note(ctx, "acme/platform", NoteableIssue, is.IID, noteID)
			must(t, err)
			if n.ID != noteID || noteID <= 0 {
				t.Fatalf("note %d, want %d", n.ID, noteID)
			}
			return NotePos(n)
		}},
		{"one label", func() []byte {
			body, err := f.sim.ChangeLabels("acme/platform", gitlabsim.NoteableIssue, is.IID, f.alice.ID, []string{"a"}, nil)
			must(t, err)
			return body
		}, func() changepos.Pos { return labelEvent(0) }},
		{"two labels: the newest event", func() []byte {
			body, err := f.sim.ChangeLabels("acme/platform", gitlabsim.NoteableIssue, is.IID, f.alice.ID, []string{"b", "c"}, nil)
			must(t, err)
			return body
		}, func() changepos.Pos { return labelEvent(2) }},
		{"closed: the last update", func() []byte {
			body, err := f.sim.SetState("acme/platform", gitlabsim.NoteableMergeRequest, 1, f.alice.ID, "close")
			must(t, err)
			return body
		}, func() changepos.Pos {
			mr, err := f.api.MergeRequest(ctx, "acme/platform", 1)
			must(t, err)
			return changepos.At(mr.UpdatedAt.UTC())
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(Options{Payload: tc.change(), Project: "acme/platform", Repo: "acme/platform", API: f.api})
			must(t, err)
			if _, err := d.ReadAll(ctx); err != nil {
				t.Fatal(err)
			}
			want := tc.want()
			if got := d.ChangePos(); got.Compare(want) != 0 || !got.At.Equal(want.At) || want.At.IsZero() {
				t.Fatalf("ChangePos = %v, want %v", got, want)
			}
		})
	}
}
