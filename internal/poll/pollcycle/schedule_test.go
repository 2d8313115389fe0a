package pollcycle_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// schedDriver is a fake driver whose discovery returns its items as
// swept candidates, keeping one receipts record and one quarantine list
// per item, and the lock entries Acquire would write.
type schedDriver struct {
	fakeDriver
	mu          sync.Mutex
	receipts    map[string]receipts.Receipts
	quarantined []poll.Poison
	locks       map[string]map[string]polllock.EntityRun
	now         func() time.Time
}

func (d *schedDriver) Discover(context.Context) (*poll.Discovery, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*poll.Item
	for _, it := range d.Items {
		c := &poll.Item{ID: it.ID, Base: it.Base, Cutoff: it.Cutoff, Entity: it.Entity,
			Receipts: receipts.Receipts{}}
		for h, r := range d.receipts[it.ID] {
			c.Receipts[h] = r
		}
		out = append(out, c)
	}
	return &poll.Discovery{Candidates: len(out), Swept: out}, nil
}

func (d *schedDriver) Acquire(ctx context.Context, items []*poll.Item) error {
	d.mu.Lock()
	for _, it := range items {
		d.locks[it.ID] = it.EntityRuns
	}
	d.mu.Unlock()
	return d.fakeDriver.Acquire(ctx, items)
}

func (d *schedDriver) Capabilities() poll.Capabilities {
	return poll.Capabilities{Scheduled: d, Quarantine: d}
}

func (d *schedDriver) EnableSweep() {}

func (d *schedDriver) Tried(_ context.Context, it *poll.Item, runs map[string]polllock.EntityRun) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	rs := d.receipts[it.ID]
	if rs == nil {
		rs = receipts.Receipts{}
		d.receipts[it.ID] = rs
	}
	for h, er := range runs {
		rs.Tried(h, er.Version, "lock", d.now())
	}
	return nil
}

func (d *schedDriver) GaveUp(_ context.Context, it *poll.Item, h, version string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.receipts[it.ID].Quarantined(h, version)
	return nil
}

func (d *schedDriver) Failed(context.Context, *poll.Item, poll.Poison) (int, error) { return 1, nil }

func (d *schedDriver) Quarantine(_ context.Context, _ *poll.Item, p poll.Poison, _ int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.quarantined = append(d.quarantined, p)
	return nil
}

// succeed plays the runner of a successful run: the receipt of the
// version its lock names.
func (d *schedDriver) succeed(item, h string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.receipts[item].Succeeded(h, d.locks[item][h].Version, "fake-out/"+h, d.now())
}

// labelled matches entities labelled needs-triage.
type labelled struct{}

func (labelled) DecideScheduled(res entity.Resolution) poll.ScheduledDecision {
	en := res.Entity
	for _, l := range en.State.Labels {
		if l == "needs-triage" {
			return poll.ScheduledDecision{Verdict: poll.VerdictRun, Matched: []poll.ScheduledMatch{{Harness: "triage", Role: "triage",
				Revision: "sha256:ab", MinRole: "write", Retry: reconcile.Policy{Max: 2, Backoff: time.Second}, Seen: en}}}
		}
	}
	return poll.ScheduledDecision{Verdict: poll.VerdictNoMatch}
}

func schedEntity(labels ...string) *entity.Resolution {
	en := &entity.Entity{Source: entity.Source{System: entity.SystemJira}, Kind: entity.KindWorkItem, ID: 10042, Key: "PROJ-7",
		URL: "https://jira.example/browse/PROJ-7", Repo: "acme/platform",
		State: entity.State{Labels: labels, Assignees: []string{}, Created: t0, Updated: t0},
		Activity: []entity.Element{{Kind: entity.ElementLabel, ID: "9", Created: t0, Label: "needs-triage",
			Actor: event.Actor{ID: "dev", Kind: event.ActorHuman, Role: event.RoleWrite}}}}
	en.Version = entity.ComputeVersion(en, nil)
	return &entity.Resolution{Entity: en}
}

func schedOpts(d *schedDriver, out *fakeOut, clk *fakeclock.Clock, policy string, notify func(context.Context, poll.EntityQuarantine)) pollcycle.Options {
	o := opts(d, fakeCore{}, out)
	o.Now = clk.Now
	o.Schedule = &poll.Schedule{Decider: labelled{}, Policy: policy, Invoker: "fake-poll:p1", Forge: "github", Notify: notify}
	return o
}

// The reconcile rule over whole cycles: one run while none succeeded, the
// retries of a version whose runs end without success after the backoff,
// then a quarantine with the reason, told once; a success ends the runs.
func TestScheduledCycles(t *testing.T) {
	clk := fakeclock.New(t0)
	d := &schedDriver{receipts: map[string]receipts.Receipts{}, locks: map[string]map[string]polllock.EntityRun{}, now: clk.Now}
	it := item("PROJ-7")
	it.Entity = schedEntity("needs-triage")
	d.Items = []*poll.Item{it}
	out := &fakeOut{}
	var told []poll.EntityQuarantine
	notify := func(_ context.Context, q poll.EntityQuarantine) { told = append(told, q) }
	cycle := func() poll.CycleStats {
		t.Helper()
		res, err := pollcycle.Run(context.Background(), schedOpts(d, out, clk, "allow", notify))
		if err != nil && !strings.Contains(err.Error(), "quarantined") {
			t.Fatal(err)
		}
		return res.Stats
	}
	st := cycle()
	if len(out.Runs) != 1 || st.ScheduledDue != 1 || st.ScheduledSwept != 1 {
		t.Fatalf("first cycle: %d runs, stats %+v", len(out.Runs), st)
	}
	r := out.Runs[0]
	ver := it.Entity.Entity.Version
	if r.WorkItem.IdempotencyKey != "triage:acme/platform:jira:work_item:10042@"+ver || r.Event.Source.System != event.SystemSchedule ||
		r.WorkItem.Attribution == nil || r.WorkItem.Attribution.Invoker != "fake-poll:p1" || r.WorkItem.Attribution.Revision != "sha256:ab" ||
		len(r.WorkItem.Attribution.Elements) != 1 || r.WorkItem.Attribution.Elements[0].Actor != "dev" {
		t.Fatalf("scheduled run %+v, work item %+v", r, r.WorkItem)
	}
	if lk := d.locks["PROJ-7"]["triage"]; lk.Version != ver || lk.Attempt != 1 {
		t.Fatalf("lock entry %+v", lk)
	}
	// The run failed (no receipt): no retry before the backoff...
	if cycle(); len(out.Runs) != 1 {
		t.Fatalf("retried within the backoff: %d runs", len(out.Runs))
	}
	// ...then retry 1 after 1s, retry 2 after 2s more.
	clk.Advance(time.Second)
	if st := cycle(); len(out.Runs) != 2 || st.ScheduledRetries != 1 || d.locks["PROJ-7"]["triage"].Attempt != 2 {
		t.Fatalf("retry 1: %d runs, %+v", len(out.Runs), st)
	}
	clk.Advance(2 * time.Second)
	if cycle(); len(out.Runs) != 3 {
		t.Fatalf("retry 2: %d runs", len(out.Runs))
	}
	// max 2 retries spent: quarantined with the reason, once.
	clk.Advance(time.Hour)
	st = cycle()
	if len(out.Runs) != 3 || st.ScheduledQuarantined != 1 || len(d.quarantined) != 1 || len(told) != 1 ||
		!strings.Contains(d.quarantined[0].Reason, "3 runs of version") || d.quarantined[0].Change != "entity@"+ver {
		t.Fatalf("quarantine: runs %d, stats %+v, records %+v, told %+v", len(out.Runs), st, d.quarantined, told)
	}
	if cycle(); len(d.quarantined) != 1 || len(told) != 1 || len(out.Runs) != 3 {
		t.Fatalf("quarantined twice: %+v", d.quarantined)
	}
	// A new version (a person's new comment) is eligible again; its run
	// succeeds: no further run.
	it.Entity.Entity.Activity = append(it.Entity.Entity.Activity, entity.TextElement(entity.ElementComment, "20", t0.Add(time.Hour),
		event.Actor{ID: "dev", Kind: event.ActorHuman, Role: event.RoleWrite}, "more"))
	it.Entity.Entity.Version = entity.ComputeVersion(it.Entity.Entity, nil)
	if cycle(); len(out.Runs) != 4 {
		t.Fatalf("new version: %d runs", len(out.Runs))
	}
	d.succeed("PROJ-7", "triage")
	clk.Advance(time.Hour)
	if st := cycle(); len(out.Runs) != 4 || st.ScheduledSwept != 0 {
		t.Fatalf("after a success: %d runs, %+v", len(out.Runs), st)
	}
}

// Without the policy's allow, nothing is evaluated with no event.
func TestScheduledDeniedByPolicy(t *testing.T) {
	for _, policy := range []string{"", "deny"} {
		clk := fakeclock.New(t0)
		d := &schedDriver{receipts: map[string]receipts.Receipts{}, locks: map[string]map[string]polllock.EntityRun{}, now: clk.Now}
		it := item("PROJ-7")
		it.Entity = schedEntity("needs-triage")
		d.Items = []*poll.Item{it}
		out := &fakeOut{}
		res, err := pollcycle.Run(context.Background(), schedOpts(d, out, clk, policy, nil))
		if err != nil || len(out.Runs) != 0 || res.Stats.ScheduledEvaluated != 0 || len(d.Writes()) != 0 {
			t.Errorf("policy %q: %v, %d runs, %+v, writes %v", policy, err, len(out.Runs), res.Stats, d.Writes())
		}
	}
}

// entityCore runs harness "agent" for "/run" comments, as an
// entity-source harness: its runs carry the item's entity.
type entityCore struct{ fakeCore }

func (c entityCore) Decide(ev *event.Event, res *entity.Resolution) poll.Decision {
	d := c.fakeCore.Decide(ev, res)
	for i := range d.Runs {
		d.Runs[i].Harness = "agent"
		if res != nil {
			d.Runs[i].Entity = res.Entity
		}
	}
	if len(d.Runs) > 1 {
		d.Runs = d.Runs[:1]
	}
	return d
}

// An event-backed run of an entity-source harness names its entity
// version in the lock (so that its success writes a receipt) and counts
// as a try of that version; it keeps its change-time idempotency key.
func TestEventBackedEntityRunsNamedInTheLock(t *testing.T) {
	clk := fakeclock.New(t0)
	d := &schedDriver{receipts: map[string]receipts.Receipts{}, locks: map[string]map[string]polllock.EntityRun{}, now: clk.Now}
	it := item("PROJ-7", "/run")
	it.Entity = schedEntity()
	d.fakeDriver.Items = []*poll.Item{it}
	out := &fakeOut{}
	o := opts(&eligibleSched{d}, entityCore{}, out)
	o.Now = clk.Now
	if _, err := pollcycle.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	ver := it.Entity.Entity.Version
	if len(out.Runs) != 1 || d.locks["PROJ-7"]["agent"] != (polllock.EntityRun{Version: ver, Attempt: 1}) {
		t.Fatalf("runs %d, lock entries %+v", len(out.Runs), d.locks["PROJ-7"])
	}
	if tr := d.receipts["PROJ-7"]["agent"].Tries; tr == nil || tr.Version != ver || tr.Count != 1 {
		t.Errorf("tries %+v", tr)
	}
	if k := out.Runs[0].WorkItem.IdempotencyKey; strings.Contains(k, ver) {
		t.Errorf("an event-backed run is keyed by its change, got %q", k)
	}
}

// eligibleSched is schedDriver discovering its items as changed ones.
type eligibleSched struct{ *schedDriver }

func (e *eligibleSched) Discover(context.Context) (*poll.Discovery, error) {
	return e.fakeDriver.Discover(context.Background())
}
