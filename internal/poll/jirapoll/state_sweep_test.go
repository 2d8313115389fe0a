package jirapoll_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// sweepDecider is a scheduled decider over the label "needs-agent"
// (harness "label", entity.every every, retried 10 times after a second); it
// records the entities it was asked about.
type sweepDecider struct {
	every time.Duration
	mu    sync.Mutex
	asked []string
}

func (d *sweepDecider) DecideScheduled(res entity.Resolution) poll.ScheduledDecision {
	d.mu.Lock()
	if !slices.Contains(d.asked, res.Entity.Key) {
		d.asked = append(d.asked, res.Entity.Key)
	}
	d.mu.Unlock()
	if !slices.Contains(res.Entity.State.Labels, "needs-agent") {
		return poll.ScheduledDecision{Verdict: poll.VerdictNoMatch}
	}
	return poll.ScheduledDecision{Verdict: poll.VerdictRun, Matched: []poll.ScheduledMatch{{Harness: "label", Role: "label",
		Revision: "sha256:0", MinRole: "write", Every: d.every, Retry: reconcile.Policy{Max: 10, Backoff: time.Second}, Seen: res.Entity}}}
}

// take returns the entities asked about since the last take.
func (d *sweepDecider) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.asked
	d.asked = nil
	return out
}

// labelled creates n handled issues carrying the label needs-agent when
// label is set.
func (e *env) labelled(n int, label bool) []string {
	var labels []string
	if label {
		labels = []string{"needs-agent"}
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = e.sim.AddIssue(jirasim.IssueSpec{Project: project, Summary: "work", Reporter: alice, Labels: labels})
		e.seed(keys[i])
	}
	e.clock.Advance(3 * time.Millisecond)
	return keys
}

// scheduledOneShot runs one `fullsend poll` process with scheduled
// discovery: a new driver (poller id id) started from dir's state (nil:
// none), one cycle with the driver's cadence on Jira's clock and
// the invoker its poller id, the state saved.
func (e *env) scheduledOneShot(dir *pollstate.Dir, id string, dec *sweepDecider, out *recorder) poll.CycleStats {
	return e.scheduledOneShotOn(dir, id, dec, out, 0)
}

// scheduledOneShotOn is scheduledOneShot on a host whose clock runs skew
// ahead of the world's.
func (e *env) scheduledOneShotOn(dir *pollstate.Dir, id string, dec *sweepDecider, out *recorder, skew time.Duration) poll.CycleStats {
	e.t.Helper()
	p := e.poller(pollerOpts{id: id, m: 2, entities: true, stale: 10 * time.Minute, out: out, hostSkew: skew})
	st := jirapoll.LoadState(dir.For(jirapoll.Name, e.base), p.client, "cred", "")
	st.Attach(p.drv)
	p.o.Schedule = &poll.Schedule{Decider: dec, Policy: "allow", Invoker: jirapoll.Name + ":" + p.drv.PollerID(), Forge: "github",
		Cadence: p.drv.Cadence()}
	stats := p.mustCycle()
	st.Save()
	st.Close()
	return stats
}

// succeed ends run as a successful one does: its receipt written, its
// lock removed.
func (e *env) succeed(run plan.Run) {
	key, _, err := polllock.ParseRef(run.PollLock.Property)
	if err != nil {
		e.t.Errorf("run carries a bad poll lock: %v", err)
		return
	}
	raw, _ := e.sim.Property(key, receipts.Key(repo))
	rs, err := receipts.Parse(raw)
	if err != nil {
		e.t.Errorf("receipts of %s: %v", key, err)
		return
	}
	rs.Succeeded(run.Harness, run.Entity.Version, "recorder/"+key, e.siteNow())
	e.sim.SetPropertyDirect(key, receipts.Key(repo), rs.Marshal())
	e.release(run)
}

// TestOneShotSweepWalksTheProject: one-shot processes sharing a state
// directory sweep the project's pages one per process, in order, and
// wrap around; without a state every process sweeps the first page.
func TestOneShotSweepWalksTheProject(t *testing.T) {
	for _, withState := range []bool{true, false} {
		t.Run(fmt.Sprint("state=", withState), func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			e.worldClient = true
			keys := e.labelled(9, false) // pages of 2: 5 pages
			var dir *pollstate.Dir
			if withState {
				dir = pollstate.Open(t.TempDir(), nil, e.clock.Now)
			}
			dec := &sweepDecider{}
			out := &recorder{after: e.release}
			pages := [][]string{keys[0:2], keys[2:4], keys[4:6], keys[6:8], keys[8:9], keys[0:2], keys[2:4]}
			for i, want := range pages {
				e.scheduledOneShot(dir, fmt.Sprint("p-", i), dec, out)
				if !withState {
					want = keys[0:2]
				}
				if got := dec.take(); !slices.Equal(got, want) {
					t.Fatalf("process %d swept %v, want %v", i, got, want)
				}
				e.clock.Advance(time.Minute)
			}
			if n := len(out.all()); n != 0 {
				t.Fatalf("%d runs dispatched, want none (no issue is labelled)", n)
			}
		})
	}
}

// TestOneShotSweepTokenRefused: a saved page token Jira no longer
// accepts (here one no longer of this query) starts the round again from
// the first page in the same process, and the walk goes on from there.
func TestOneShotSweepTokenRefused(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.worldClient = true
	keys := e.labelled(5, false)
	dir := pollstate.Open(t.TempDir(), nil, e.clock.Now)
	dec := &sweepDecider{}
	out := &recorder{after: e.release}
	e.scheduledOneShot(dir, "p-0", dec, out)
	path := dir.For(jirapoll.Name, e.base).Path()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	sweep := env["state"].(map[string]any)["sweep"].(map[string]any)
	if sweep["token"] == "" || sweep["token"] == nil {
		t.Fatalf("no page token saved: %s", raw)
	}
	sweep["token"] = "bm90LWEtdG9rZW4" // not a token of this query
	raw, _ = json.Marshal(env)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	dec.take()
	for i, want := range [][]string{keys[0:2], keys[2:4], keys[4:5], keys[0:2]} {
		e.clock.Advance(time.Minute)
		e.scheduledOneShot(dir, fmt.Sprint("p-", i+1), dec, out)
		if got := dec.take(); !slices.Equal(got, want) {
			t.Fatalf("process %d swept %v, want %v", i+1, got, want)
		}
	}
}

// TestOneShotCadence: with entity.every 1h, a fresh process within the
// hour does not evaluate the entity its predecessor evaluated (so its
// failed run is not retried yet), one after the hour does, and the
// scheduled runs of every process name the poller the state restored as
// their invoker. Without a state every process evaluates at once.
func TestOneShotCadence(t *testing.T) {
	for _, withState := range []bool{true, false} {
		t.Run(fmt.Sprint("state=", withState), func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			e.worldClient = true
			keys := e.labelled(1, true)
			var dir *pollstate.Dir
			if withState {
				dir = pollstate.Open(t.TempDir(), nil, e.clock.Now)
			}
			dec := &sweepDecider{every: time.Hour}
			out := &recorder{after: e.release} // the run ends without success
			steps := []struct {
				after time.Duration
				runs  int
			}{{0, 1}, {time.Minute, 1}, {30 * time.Minute, 1}, {30 * time.Minute, 2}, {time.Minute, 2}}
			for i, s := range steps {
				e.clock.Advance(s.after)
				e.scheduledOneShot(dir, fmt.Sprint("p-", i), dec, out)
				want := s.runs
				if !withState {
					want = i + 1
				}
				if got := len(out.all()); got != want {
					t.Fatalf("process %d (%v later): %d runs of %s, want %d", i, s.after, got, keys[0], want)
				}
			}
			for _, r := range out.all() {
				a := r.WorkItem.Attribution
				if want := "jira-poll:p-0"; withState && (a == nil || a.Invoker != want) {
					t.Fatalf("attribution %+v, want the invoker %s (the restored poller)", a, want)
				}
			}
		})
	}
}

// TestOneShotCadenceAcrossHosts: the cadence a one-shot process keeps in
// the state directory is on Jira's clock, so the next process, on a host
// whose clock is three hours off the first one's, still honours
// entity.every. On the hosts' clocks it re-evaluated at once.
func TestOneShotCadenceAcrossHosts(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.worldClient = true
	e.labelled(1, true)
	dir := pollstate.Open(t.TempDir(), nil, e.clock.Now)
	dec := &sweepDecider{every: time.Hour}
	out := &recorder{after: e.release} // the run ends without success
	steps := []struct {
		after, skew time.Duration
		runs        int
	}{{0, -90 * time.Minute, 1}, {time.Minute, 90 * time.Minute, 1}, {30 * time.Minute, -90 * time.Minute, 1}, {30 * time.Minute, 90 * time.Minute, 2}}
	for i, s := range steps {
		e.clock.Advance(s.after)
		e.scheduledOneShotOn(dir, fmt.Sprint("p-", i), dec, out, s.skew)
		if got := len(out.all()); got != s.runs {
			t.Fatalf("process %d (host clock %v off): %d runs, want %d", i, s.skew, got, s.runs)
		}
	}
}

// TestOneShotCorruptStateSweepsAgain: a corrupt state makes the next
// process sweep from the first page and evaluate at once; the entities
// already handled (their receipts cover their version) are not
// dispatched again.
func TestOneShotCorruptStateSweepsAgain(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.worldClient = true
	keys := e.labelled(7, true) // pages of 2: 4 pages
	dir := pollstate.Open(t.TempDir(), nil, e.clock.Now)
	dec := &sweepDecider{every: time.Hour}
	out := &recorder{after: e.succeed}
	for i := range 3 {
		e.scheduledOneShot(dir, fmt.Sprint("p-", i), dec, out)
		if got := dec.take(); !slices.Equal(got, keys[2*i:2*i+2]) {
			t.Fatalf("process %d swept %v, want %v", i, got, keys[2*i:2*i+2])
		}
		e.clock.Advance(time.Minute)
	}
	if err := os.WriteFile(dir.For(jirapoll.Name, e.base).Path(), []byte(`{"version":1,"state":`), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		e.scheduledOneShot(dir, fmt.Sprint("q-", i), dec, out)
		want := [][]string{keys[0:2], keys[2:4], keys[4:6], keys[6:7], keys[0:2]}[i]
		if got := dec.take(); !slices.Equal(got, want) {
			t.Fatalf("after the corrupt state, process %d swept %v, want %v", i, got, want)
		}
		e.clock.Advance(time.Minute)
	}
	got := out.count()
	for _, k := range keys {
		if got[k+"/label"] != 1 {
			t.Fatalf("%s dispatched %d times, want once (%v)", k, got[k+"/label"], got)
		}
	}
}
