package polltest

import (
	"context"
	"flag"
	"net/http"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// Commands is a poll.Decider that decides as the core does for one
// harness whose trigger is a slash command under a minimum role: a
// comment carrying Command by an actor of at least MinRole (default
// write) runs Harness; one by a lesser actor is denied; any other change
// (a comment without the command, an opening, a label) matches nothing.
// Bots never reach it: the cycle's loop guard drops their changes first.
type Commands struct {
	Harness, Command, Forge string
	MinRole                 event.Role
}

// Decide implements poll.Decider.
func (d Commands) Decide(ev *event.Event, _ *entity.Resolution) poll.Decision {
	c := ev.Transition.Comment
	if c == nil || c.Command != d.Command {
		return poll.Decision{Verdict: poll.VerdictNoMatch}
	}
	least := d.MinRole
	if least == "" {
		least = event.RoleWrite
	}
	if !ev.Actor.Role.AtLeast(least) {
		return poll.Decision{Verdict: poll.VerdictDenied, Reason: "role " + string(ev.Actor.Role) + " is below " + string(least)}
	}
	return poll.Decision{Verdict: poll.VerdictRun, Runs: []plan.Run{{Harness: d.Harness, Event: ev,
		Key: scope.KeyOf(d.Harness, ev, d.Forge), WorkItem: plan.WorkItem{URL: ev.Entity.URL, Source: ev.Source.System}}}}
}

// Admit implements poll.Decider: every run.
func (Commands) Admit(runs []plan.Run) (admitted, skipped []plan.Run) { return runs, nil }
func (Commands) Refund([]plan.Run)                                    {}
func (Commands) DecidesEntities(string) bool                          { return false }

// The volume benchmark's settings (scripts/bench-poll.sh forge), shared by
// github-poll's and gitlab-poll's BenchmarkVolume.
var (
	VolumeItems   = flag.Int("forge.items", 500, "changed items in the window, each with one command comment")
	VolumeN       = flag.Int("forge.n", poll.DefaultN, "lock.n handed to the cycle (the backstops took at most that many items a cycle)")
	VolumeBudget  = flag.Int("forge.budget", 0, "requests_per_cycle handed to the cycle (0: the default)")
	VolumeLatency = flag.Duration("forge.latency", 0, "latency added to every request, poller and output alike")
	VolumeCycles  = flag.Int("forge.cycles", 200, "cycles at most before giving up on dispatching every item")
)

// Latency delays every request sent through next by d (0: none): the
// volume benchmark's stand-in for a forge's round trip. Benchmarks only:
// it sleeps.
func Latency(next http.RoundTripper, d time.Duration) http.RoundTripper {
	if d <= 0 {
		return next
	}
	return latency{next, d}
}

type latency struct {
	next http.RoundTripper
	d    time.Duration
}

func (l latency) RoundTrip(r *http.Request) (*http.Response, error) {
	t := time.NewTimer(l.d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
	return l.next.RoundTrip(r)
}

// VolumeWorld is a forge emulator whose window holds changed items, each
// with one comment carrying a command, and a poller over it, for Volume.
type VolumeWorld interface {
	// Cycle runs one poll cycle of the poller through the forge's
	// dispatching output.
	Cycle(ctx context.Context) (poll.CycleStats, error)
	// Requests counts every request the emulator answered (the poller's
	// and the output's); Points those that counted against its rate limit.
	Requests() int
	Points() int
}

// VolumeReport is what Volume measured.
type VolumeReport struct {
	Items      int           // changed items, one run due each
	FirstCycle int           // runs the first cycle dispatched
	Cycles     int           // cycles until every item was dispatched
	Dispatched int           // runs dispatched in all
	Requests   int           // emulator requests over those cycles (poller and output)
	Points     int           // of them, rate-limit points
	Poller     int           // the poller's own requests (CycleStats.APICalls)
	FirstWall  time.Duration // the first cycle's wall time
	Wall       time.Duration // all cycles' wall time
}

// Volume runs cycles of w until items runs were dispatched, at most
// maxCycles, and fails b if a cycle fails or a run is dispatched twice.
func Volume(b testing.TB, w VolumeWorld, items, maxCycles int) VolumeReport {
	b.Helper()
	r := VolumeReport{Items: items}
	r0, p0 := w.Requests(), w.Points()
	for r.Dispatched < items && r.Cycles < maxCycles {
		start := time.Now()
		st, err := w.Cycle(context.Background())
		if err != nil {
			b.Fatalf("cycle %d: %v", r.Cycles+1, err)
		}
		took := time.Since(start)
		if r.Cycles == 0 {
			r.FirstCycle, r.FirstWall = st.DispatchesScheduled, took
		}
		r.Cycles++
		r.Wall += took
		r.Dispatched += st.DispatchesScheduled
		r.Poller += st.APICalls
	}
	r.Requests, r.Points = w.Requests()-r0, w.Points()-p0
	if r.Dispatched != items {
		b.Fatalf("%d cycles dispatched %d runs, want %d (one per item)", r.Cycles, r.Dispatched, items)
	}
	return r
}

// Report hands r to b's metrics and log: items per cycle, requests and
// points per item, the poller's requests per item, cycles, wall time.
func (r VolumeReport) Report(b *testing.B) {
	per := func(n int) float64 { return float64(n) / float64(r.Items) }
	b.ReportMetric(float64(r.FirstCycle), "items/first-cycle")
	b.ReportMetric(float64(r.Cycles), "cycles")
	b.ReportMetric(per(r.Requests), "requests/item")
	b.ReportMetric(per(r.Points), "points/item")
	b.ReportMetric(per(r.Poller), "poller-requests/item")
	b.ReportMetric(float64(r.FirstWall.Milliseconds()), "ms/first-cycle")
	b.ReportMetric(float64(r.Wall.Milliseconds()), "ms/all-cycles")
	b.Logf("%d items: %d dispatched by the first cycle, all in %d cycles; %d requests (%.2f per item; the poller's %.2f), %d points (%.2f per item); first cycle %s, all %s",
		r.Items, r.FirstCycle, r.Cycles, r.Requests, per(r.Requests), per(r.Poller), r.Points, per(r.Points),
		r.FirstWall.Round(time.Millisecond), r.Wall.Round(time.Millisecond))
}

// DueItems is a case of the forge pollers' one-cycle test: Commands
// items each get a command, and with Unrelated three more items get,
// before them, a comment that starts nothing (an outsider's command, a
// bot's command, a maintainer's comment without one); one cycle runs
// with lock.n N (0: the default).
type DueItems struct {
	Name      string
	N         int
	Commands  int
	Unrelated bool
}

// DueItemCases are the cases github-poll and gitlab-poll pass: three
// commands after three unrelated comments at n 2 and at the default n,
// and twelve commands, more than the default n.
var DueItemCases = []DueItems{
	{"three commands after three unrelated comments, n 2", 2, 3, true},
	{"three commands after three unrelated comments, default n", 0, 3, true},
	{"twelve commands, default n", 0, 12, false},
}

// Check fails t unless the one cycle st dispatched every command, left
// no item to the next cycle and decided each unrelated comment: one
// denied, one by a bot, one matching nothing.
func (c DueItems) Check(t testing.TB, st poll.CycleStats) {
	t.Helper()
	if st.DispatchesScheduled != c.Commands || st.ItemsDeferred != 0 {
		t.Fatalf("one cycle dispatched %d of %d commands (%d items selected of %d eligible, %d deferred)",
			st.DispatchesScheduled, c.Commands, st.Selected, st.Eligible, st.ItemsDeferred)
	}
	if c.Unrelated && (st.EventsDenied != 1 || st.EventsBot != 1 || st.EventsNoMatch != 1) {
		t.Fatalf("unrelated comments: %d denied, %d by bots, %d matching nothing; want one each", st.EventsDenied, st.EventsBot, st.EventsNoMatch)
	}
}
