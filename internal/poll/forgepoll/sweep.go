package forgepoll

import (
	"context"
	"log/slog"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Sweep is scheduled discovery's candidates of one forge (poll.Sweeper's
// part in Discover): every subject the window's listings show that has no
// change left to handle, and the subjects of the sweep's page. The
// driver supplies how its records are made current, how a candidate's
// entity is had and how its receipts are filled in.
type Sweep[S Subject] struct {
	// Refresh makes the run records current; it is called once, before
	// the first candidate, and only when there is one.
	Refresh func(context.Context) error
	// Entity is the candidate's entity (remembered or resolved).
	Entity func(context.Context, S) (*entity.Entity, error)
	// Fill sets the item's receipts and active runs from the records.
	Fill func(*poll.Item, S)
	Log  *slog.Logger
}

// Candidates is subs (the window's) then page (the sweep's), each subject
// once and none of todo (those with changes to handle).
func Candidates[S Subject](todo, subs, page []S) []S {
	skip := map[string]bool{}
	for _, s := range todo {
		skip[s.Key()] = true
	}
	var out []S
	for _, group := range [][]S{subs, page} {
		for _, s := range group {
			if !skip[s.Key()] {
				skip[s.Key()] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// Add adds the candidates to disc's swept items, each with its entity
// (one whose entity cannot be had is skipped, logged) and its records,
// and puts them in w.
func (sw Sweep[S]) Add(ctx context.Context, w *Window[S], disc *poll.Discovery, cands []S, cutoff time.Time) error {
	if len(cands) == 0 {
		return nil
	}
	if err := sw.Refresh(ctx); err != nil {
		return err
	}
	for _, s := range cands {
		w.Put(s)
		e, err := sw.Entity(ctx, s)
		if err != nil {
			sw.Log.Debug("swept item skipped: its entity could not be built", "item", s.Key(), "error", err.Error())
			continue
		}
		it := &poll.Item{ID: s.Key(), Base: poll.Checkpoint{At: s.UpdatedAt()}, Cutoff: MinTime(s.UpdatedAt(), cutoff),
			Waiting: s.UpdatedAt(), Entity: &entity.Resolution{Entity: e}}
		sw.Fill(it, s)
		disc.Swept = append(disc.Swept, it)
	}
	return nil
}
