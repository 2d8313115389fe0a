package jirapoll_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/syncio"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// bothProjects is a query over the two projects of twoProjectPlateau.
const bothProjects = "project in (" + project + ", OPS) AND statusCategory != Done"

// twoProjectPlateau creates 2k handled issues alternating between the
// projects PROJ and OPS (so their ids interleave), then adds the label
// "bulk" to each in one millisecond, as a bulk edit may: a plateau of 2k
// issues over two projects, each with a change (harness "watch"). It
// returns the keys and that millisecond, 10 minutes before the world's
// clock.
func (e *env) twoProjectPlateau(k int) ([]string, time.Time) {
	e.sim.AddProject("OPS", "Operations")
	e.sim.SetRole("OPS", "Developers", alice)
	keys := make([]string, 2*k)
	for i := range keys {
		keys[i] = e.sim.AddIssue(jirasim.IssueSpec{Project: []string{project, "OPS"}[i%2], Summary: "work", Reporter: alice})
		e.seed(keys[i])
	}
	e.clock.Advance(3 * time.Millisecond)
	e.clock.freeze(true)
	at := e.siteNow()
	for _, key := range keys {
		e.sim.AddLabel(key, "bulk", alice)
	}
	e.clock.freeze(false)
	e.clock.Advance(10 * time.Minute)
	return keys, at
}

// witnessed counts the searches among jqls that compare issue ids as
// numbers (they carry jira.IDWitness).
func witnessed(jqls []string) int {
	n := 0
	for _, q := range jqls {
		if strings.Contains(q, jira.IDWitness) {
			n++
		}
	}
	return n
}

// TestPlateauTwoProjectsEveryReading: under each reading of issue-key
// comparisons, with the discovery cursor and without (newest first), a
// plateau of 20 issues over two projects whose ids interleave, read 4 a
// page, loses nothing: every change is dispatched once, and no cycle
// fails. Where ids compared per project, `id > ID` passed over the other
// project's issues of that millisecond; where comparisons are refused,
// the second page failed the discovery.
func TestPlateauTwoProjectsEveryReading(t *testing.T) {
	for _, r := range keyReadings {
		for _, cursor := range []string{jirapoll.CursorUser, ""} {
			t.Run(fmt.Sprintf("%s/cursor=%q", r.name, cursor), func(t *testing.T) {
				e := newEnv(t, jirasim.Options{KeyComparison: r.k})
				keys, _ := e.twoProjectPlateau(10)
				out := &recorder{after: e.release}
				p := e.poller(pollerOpts{cursor: cursor, m: 4, stale: 10 * time.Minute, out: out, queries: []string{bothProjects}})
				for range 8 {
					p.mustCycle()
					e.clock.Advance(time.Minute)
				}
				got := out.count()
				for _, k := range keys {
					if got[k+"/watch"] != 1 {
						t.Fatalf("%s dispatched %d times, want once: %v", k, got[k+"/watch"], got)
					}
				}
				if len(got) != len(keys) {
					t.Fatalf("dispatched %v, want one watch run on each of %v", got, keys)
				}
			})
		}
	}
}

// TestKeysetRefusedOnce: where Jira does not compare issue ids as numbers,
// the first search that compares them is refused and asked again without
// (no cycle fails), the site's answer is remembered for the process and,
// through the state directory, by the next processes: over five one-shot
// processes exactly one search compares ids, and the refusal is logged
// once. Where ids compare as numbers nothing is refused and every process
// keeps paging by id.
func TestKeysetRefusedOnce(t *testing.T) {
	for _, r := range keyReadings {
		t.Run(r.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{KeyComparison: r.k})
			e.worldClient = true
			keys, _ := e.twoProjectPlateau(10)
			dir := pollstate.Open(t.TempDir(), nil, e.clock.Now)
			var logs syncio.Buffer
			out := &recorder{after: e.release}
			po := pollerOpts{cursor: jirapoll.CursorUser, m: 4, stale: 10 * time.Minute, out: out, queries: []string{bothProjects},
				log: slog.New(slog.NewTextHandler(&logs, nil))}
			var perProcess []int
			for range 5 {
				before := len(e.sim.SearchJQL())
				e.oneShot(dir, "cred", po)
				perProcess = append(perProcess, witnessed(e.sim.SearchJQL()[before:]))
				e.clock.Advance(time.Minute)
			}
			reported := strings.Count(logs.String(), "Jira does not compare issue ids as numbers")
			if r.k == jirasim.KeysNumeric {
				if reported != 0 || perProcess[1] == 0 {
					t.Fatalf("numeric ids: %d refusals reported, searches by id per process %v: want none refused, ids used", reported, perProcess)
				}
			} else if fmt.Sprint(perProcess) != "[1 0 0 0 0]" || reported != 1 {
				t.Fatalf("searches by id per process %v, refusal reported %d times: want [1 0 0 0 0] and once\n%s", perProcess, reported, logs.String())
			}
			if got := out.count(); len(got) != len(keys) {
				t.Fatalf("dispatched %v, want one run on each of the %d issues", got, len(keys))
			}
		})
	}
}

// TestInvalidQueryWithCursorID: a configured query Jira refuses stays the
// user's error (poll.ErrQuery, exit 2) under every reading, also when the
// search carried the cursor's issue id; the refusal is not taken for the
// site's answer to an id comparison.
func TestInvalidQueryWithCursorID(t *testing.T) {
	for _, r := range keyReadings {
		t.Run(r.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{KeyComparison: r.k})
			keys := e.plateau(3)
			e.clock.Advance(10 * time.Minute)
			id, _ := strconv.ParseInt(e.sim.IssueID(keys[1]), 10, 64)
			e.putCursor(cursor.Cursor{At: e.siteNow().Add(-5 * time.Minute), AtID: id, By: "other", TS: e.clock.Now()})
			p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, queries: []string{"project = NOPE"}})
			_, err := p.cycle(context.Background())
			if !errors.Is(err, poll.ErrQuery) || !strings.Contains(err.Error(), "'NOPE'") {
				t.Fatalf("cycle: %v, want ErrQuery naming the project", err)
			}
			if p.client.IDsNotNumeric() {
				t.Fatal("the refused query was taken for a refused id comparison")
			}
		})
	}
}

// TestPlateauBeyondReach: a plateau larger than a cycle reads (30 issues,
// 10 pages of 2). Where ids compare as numbers the cursor walks into it;
// elsewhere the cursor stays before it (a position inside one
// millisecond cannot be searched from there) and the poller says so once,
// whatever the cycles.
func TestPlateauBeyondReach(t *testing.T) {
	for _, r := range keyReadings {
		t.Run(r.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{KeyComparison: r.k})
			at := e.siteNow().Truncate(time.Millisecond)
			e.plateau(30)
			e.clock.Advance(10 * time.Minute)
			var logs syncio.Buffer
			p := e.poller(pollerOpts{cursor: jirapoll.CursorUser, m: 2, stale: 10 * time.Minute, out: &recorder{after: e.release},
				log: slog.New(slog.NewTextHandler(&logs, nil))})
			for range 3 {
				p.mustCycle()
				e.clock.Advance(time.Minute)
			}
			c, _ := e.cursor()
			warned := strings.Count(logs.String(), "more issues were updated in one millisecond than a cycle reads")
			if r.k == jirasim.KeysNumeric {
				if warned != 0 || !c.At.Equal(at) || c.AtID == 0 {
					t.Fatalf("cursor at (%s, %d), %d warnings: want a position inside the plateau at %s, none", c.At, c.AtID, warned, at)
				}
				return
			}
			if warned != 1 || c.At.After(at) || c.AtID != 0 {
				t.Fatalf("cursor at (%s, %d), %d warnings: want it at or before %s without an id, one warning\n%s", c.At, c.AtID, warned, at, logs.String())
			}
		})
	}
}
