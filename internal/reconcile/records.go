package reconcile

import (
	"slices"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/receipts"
)

// Records from run records: where a forge keeps no property of ours on
// an entity (GitHub, GitLab), the runs it records are the receipts. A
// scheduled run carries IdempotencyKey (scope key @ entity version); of
// the runs carrying the key of the entity's current version, one that
// succeeded is the receipt, those that ended otherwise are the tries,
// and one not ended makes the scope active.

// Attempt is one run of a scope as the forge's run records show it.
type Attempt struct {
	ID        int64
	Suffix    string    // the key's part after "@": an entity version, or a change time
	Done      bool      // the run ended
	Succeeded bool      // it ended with success
	At        time.Time // its last update (its end, once Done)
}

// RecordOf is a harness's record for version from the attempts of its
// scope: the receipt (the success of version, else the newest success of
// any version: entity.receipt), the tries of version that ended without
// success (Quarantined: quarantined), and whether an attempt has not
// ended (active). ref names a run in the receipt.
func RecordOf(version string, as []Attempt, quarantined bool, ref func(id int64) string) (rec receipts.HarnessRecord, active bool) {
	carrying := 0
	seen := map[int64]bool{}
	var tries *receipts.Tries
	var newest *receipts.Receipt
	for _, a := range as {
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		if !a.Done {
			active = true
			if a.Suffix == version {
				carrying++
			}
			continue
		}
		if _, isTime := ChangeTime(a.Suffix); a.Succeeded && !isTime && (newest == nil || a.At.After(newest.At)) {
			newest = &receipts.Receipt{Version: a.Suffix, At: a.At, Run: ref(a.ID), Outcome: receipts.OutcomeSucceeded}
		}
		if a.Suffix != version {
			continue
		}
		carrying++
		if a.Succeeded {
			if rec.Success == nil || a.At.After(rec.Success.At) {
				rec.Success = &receipts.Receipt{Version: version, At: a.At, Run: ref(a.ID), Outcome: receipts.OutcomeSucceeded}
			}
			continue
		}
		if tries == nil {
			tries = &receipts.Tries{Version: version}
		}
		tries.Count++
		if a.At.After(tries.At) {
			tries.At = a.At // the backoff runs from the run's end
		}
	}
	if rec.Success != nil {
		rec.Success.Attempts = carrying
		return rec, active
	}
	rec.Success = newest
	if tries != nil {
		tries.Quarantined = quarantined
		rec.Tries = tries
	}
	return rec, active
}

// SplitScoped splits an idempotency key "<harness>:<repo>:<system>:<kind>:<id>@<suffix>"
// into the harness, the scope key without its harness and the suffix.
func SplitScoped(key string) (harness, tail, suffix string, ok bool) {
	sk, suffix, found := strings.Cut(key, "@")
	if !found || suffix == "" || strings.Count(sk, ":") != 4 {
		return "", "", "", false
	}
	harness, tail, _ = strings.Cut(sk, ":")
	return harness, tail, suffix, harness != ""
}

// ChangeTime is the change time a key's suffix names (Unix milliseconds,
// with the change's id when it has one: changepos.ParseID); false for
// an entity version.
func ChangeTime(suffix string) (time.Time, bool) {
	p, ok := changepos.ParseID(suffix)
	return p.At, ok
}

// VersionTime is a time no later than the moment e's version came to
// be, so that every run of that version was created after it: the
// newest activity element of a person (the tool's own accounts, own, do
// not make versions), else the entity's creation.
func VersionTime(e *entity.Entity, own []string) time.Time {
	t := e.State.Created
	for _, el := range e.Activity {
		if el.Actor.Kind == event.ActorHuman && !slices.Contains(own, el.Actor.ID) && el.Created.After(t) {
			t = el.Created
		}
	}
	return t
}
