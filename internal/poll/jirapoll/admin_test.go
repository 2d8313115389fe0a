package jirapoll_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestSeed(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	fresh, corrupt, done := e.issue(), e.issue(), e.issue()
	e.sim.SetPropertyDirect(corrupt, checkKey(), json.RawMessage(`"not a time"`))
	e.sim.SetPropertyDirect(done, checkKey(), json.RawMessage(`{"ts":"2020-01-01T00:00:00Z"}`))
	p := e.poller(pollerOpts{})
	rep, err := p.drv.Seed(context.Background())
	if err != nil || rep != (jirapoll.SeedReport{Matched: 3, Seeded: 1}) {
		t.Fatalf("seed = %+v, %v", rep, err)
	}
	if lc, ok := e.lastCheck(fresh); !ok || lc.TS.IsZero() {
		t.Errorf("fresh issue not seeded: %+v", lc)
	}
	if raw, _ := e.sim.Property(corrupt, checkKey()); string(raw) != `"not a time"` {
		t.Errorf("existing (corrupt) lastCheck overwritten: %s", raw)
	}
	if raw, _ := e.sim.Property(done, checkKey()); string(raw) != `{"ts":"2020-01-01T00:00:00Z"}` {
		t.Errorf("existing lastCheck overwritten: %s", raw)
	}
	if rep, err = p.drv.Seed(context.Background()); err != nil || rep.Seeded != 0 {
		t.Errorf("second seed = %+v, %v; want nothing seeded", rep, err)
	}
	// The seeded issue is quiet; the other two count as changed (a corrupt
	// lastCheck, and one older than the issue).
	rec := &recorder{}
	p.o.Output = rec
	if st := p.mustCycle(); st.Eligible != 2 || len(rec.all()) != 0 {
		t.Errorf("after seed: eligible %d, dispatched %d; want 2 and 0", st.Eligible, len(rec.all()))
	}
}

func TestCancel(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k, bare, corrupt := e.issue(), e.issue(), e.issue()
	e.seed(k)
	lc, _ := e.sim.Property(k, checkKey())
	lock := `{"id":"p","ts":"2026-01-01T00:00:00Z","phase":"dispatched","runs":[{"driver":"gha-dispatch","id":"1","url":"u1"},{"driver":"gha-dispatch","id":"2","url":"u2"}]}`
	e.sim.SetPropertyDirect(k, lockKey(), json.RawMessage(lock))
	e.sim.SetPropertyDirect(corrupt, lockKey(), json.RawMessage(`[1]`))
	p := e.poller(pollerOpts{})
	var cancelled []string
	cancel := func(_ context.Context, ref plan.Ref) (string, error) {
		cancelled = append(cancelled, ref.ID)
		if ref.ID == "2" {
			return "", errors.New("forbidden")
		}
		return "cancelled", nil
	}
	rep, err := p.drv.Cancel(context.Background(), k, cancel)
	if err != nil || !rep.Deleted || len(rep.Runs) != 2 || rep.Runs[0].Outcome != "cancelled" || rep.Runs[1].Err == nil {
		t.Fatalf("cancel = %+v, %v", rep, err)
	}
	if len(cancelled) != 2 {
		t.Errorf("cancelled %v, want both runs", cancelled)
	}
	if _, ok := e.lock(k); ok {
		t.Error("lock kept")
	}
	if now, _ := e.sim.Property(k, checkKey()); string(now) != string(lc) {
		t.Errorf("lastCheck changed: %s → %s", lc, now)
	}
	if _, err := p.drv.Cancel(context.Background(), bare, nil); !errors.Is(err, jirapoll.ErrNoLock) {
		t.Errorf("no lock: err = %v", err)
	}
	if _, err := p.drv.Cancel(context.Background(), "PROJ-999", nil); !errors.Is(err, jirapoll.ErrNoIssue) {
		t.Errorf("unknown issue: err = %v", err)
	}
	rep, err = p.drv.Cancel(context.Background(), corrupt, nil)
	if err != nil || rep.Corrupt == "" || !rep.Deleted {
		t.Errorf("corrupt lock: %+v, %v", rep, err)
	}
}
