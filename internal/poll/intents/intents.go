// Package intents is crash-safe dispatch's rule over the intents a poller
// writes into an item's checkpoint right before dispatching
// (docs/polling.md, "Delivery contract"): which intents are believed, how
// old one must be before the platform's "no such run" is, where on the
// platform's clock the lookup of its run starts, and, for one item, which
// runs are dispatched again and which the platform already has (Recover).
// It asks the platform through the functions it is given and writes
// nothing.
package intents

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/lastcheck"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

// ClockMargin is how much earlier than the intent, mapped onto the
// platform's clock, the lookup of its run starts: the error of the three
// clock estimates involved, each within trackerclock.MaxError (the
// tracker's clock of the poller that wrote the intent, and this poller's
// estimates of the tracker's and of the platform's clocks).
const ClockMargin = trackerclock.ClockError + trackerclock.MaxError

// Since maps an intent's time ts, on the tracker's clock whose time is
// now, onto the platform's clock whose time is platform, less ClockMargin.
func Since(ts, now, platform time.Time) time.Time {
	return ts.Add(platform.Sub(now)).Add(-ClockMargin)
}

// Pos is the position of the change an intent's run was dispatched for:
// the one its key names, else (a key without one) its change time.
func Pos(in lastcheck.Intent) changepos.Pos {
	if pos, ok := changepos.OfKey(in.Key); ok {
		return pos
	}
	return changepos.At(in.Change)
}

// Young reports whether intents holds one younger than settle at now,
// and which; one from the future (lastcheck.Intent.Future) is not
// believed.
func Young(intents map[string]lastcheck.Intent, now time.Time, settle time.Duration) (bool, lastcheck.Intent) {
	for _, in := range intents {
		if !in.Future(now) && now.Sub(in.TS) < settle {
			return true, in
		}
	}
	return false, lastcheck.Intent{}
}

// Kept is what the checkpoint after a dispatch keeps of the intents
// written: those of the harnesses whose dispatch failed with an unknown
// outcome, since a failure after the request was sent may have started
// the run. A dispatch that certainly started nothing (unsent) leaves no
// intent.
func Kept(written map[string]lastcheck.Intent, failed, unsent map[string]bool) map[string]lastcheck.Intent {
	var out map[string]lastcheck.Intent
	for h := range failed {
		if unsent[h] {
			continue
		}
		if in, ok := written[h]; ok {
			if out == nil {
				out = map[string]lastcheck.Intent{}
			}
			out[h] = in
		}
	}
	return out
}

// Item is one item's runs before recovery: Runs[i] is for the change at
// Pos[i]; Intents are those its checkpoint holds, GoneLocks the locks the
// cycle's takeover made void.
type Item struct {
	ID        string
	Runs      []plan.Run
	Pos       []changepos.Pos
	Intents   map[string]lastcheck.Intent
	GoneLocks []string
}

// Outcome is what Recover decided for an item: the runs (and their
// positions) still to dispatch, how many the platform already had, and
// Blocked when the item must be left for a later cycle (Runs and Pos are
// then the item's own).
type Outcome struct {
	Runs    []plan.Run
	Pos     []changepos.Pos
	Found   int
	Blocked bool
}

// Recovery asks the platform about the intents a previous holder of an
// item's lock left behind.
type Recovery struct {
	// Find asks the platform for a run with run's idempotency key started
	// at or after since (the output's DispatchFinder).
	Find func(ctx context.Context, run plan.Run, since time.Time) (ref *plan.Ref, found bool, err error)
	// Since is where the lookup of an intent written at ts starts.
	Since  func(ctx context.Context, ts time.Time) time.Time
	Now    func() time.Time // the tracker's clock
	Settle time.Duration    // how old an intent must be before "no such run" is believed
	Log    *slog.Logger
}

// Recover decides it's runs. A run of the intent's change (or an older
// one) that the platform has is not dispatched again: the harness counts
// as handled. A failed lookup, or an intent too recent to tell, blocks
// the item, since dispatching could start the run twice. An intent from
// the future, one written under a lock the cycle's takeover made void or
// one a newer change supersedes asks nothing: its run is dispatched.
func (r Recovery) Recover(ctx context.Context, it Item) Outcome {
	var out Outcome
	for i, run := range it.Runs {
		in, ok := it.Intents[run.Harness]
		if ok && in.Future(r.Now()) {
			r.Log.Warn("intent with a time in the future: not believed; its change is dispatched again", "item", it.ID,
				"harness", run.Harness, "key", in.Key, "ts", in.TS.UTC().Format(time.RFC3339Nano), "change", in.Change.UTC().Format(time.RFC3339Nano))
			ok = false
		}
		newer := ok && it.Pos[i].After(Pos(in))
		if newer {
			r.Log.Info("interrupted dispatch superseded by a newer change", "item", it.ID, "harness", run.Harness, "key", in.Key)
		}
		gone := ok && in.Lock != "" && slices.Contains(it.GoneLocks, in.Lock)
		if gone {
			r.Log.Info("interrupted dispatch whose lock was taken over unclaimed: dispatched again", "item", it.ID,
				"harness", run.Harness, "key", in.Key)
		}
		if !ok || gone || newer {
			out.Runs, out.Pos = append(out.Runs, run), append(out.Pos, it.Pos[i])
			continue // no intent, its run cannot start, or a newer change supersedes it
		}
		run.WorkItem.IdempotencyKey = in.Key
		r.Log.Info("interrupted dispatch: asking the platform whether its run exists", "item", it.ID,
			"harness", run.Harness, "key", in.Key, "since", in.TS.UTC().Format(time.RFC3339Nano))
		ref, found, err := r.Find(ctx, run, r.Since(ctx, in.TS))
		if err != nil {
			r.Log.Error("could not ask the platform whether an interrupted dispatch started; item left for the next cycle",
				"item", it.ID, "harness", run.Harness, "key", in.Key, "error", err.Error())
			return Outcome{Runs: it.Runs, Pos: it.Pos, Found: out.Found, Blocked: true}
		}
		if !found && r.Now().Sub(in.TS) < r.Settle {
			r.Log.Info("interrupted dispatch too recent to tell whether its run started; item left for a later cycle",
				"item", it.ID, "harness", run.Harness, "key", in.Key, "settle_ms", r.Settle.Milliseconds())
			return Outcome{Runs: it.Runs, Pos: it.Pos, Found: out.Found, Blocked: true}
		}
		if !found {
			out.Runs, out.Pos = append(out.Runs, run), append(out.Pos, it.Pos[i])
			continue
		}
		out.Found++
		attrs := []any{"item", it.ID, "harness", run.Harness, "key", in.Key}
		if ref != nil {
			attrs = append(attrs, "run_id", ref.ID, "url", ref.URL)
		}
		r.Log.Info("run of an interrupted dispatch found on the platform; not dispatched again", attrs...)
	}
	return out
}
