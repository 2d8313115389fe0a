package jirapoll

import (
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// savedSweep is scheduled discovery's memory in the state: the sweep's
// position (the page token of the next page; none starts from the
// first) and the cadence of the evaluations (entity.every), only the
// entries still holding an evaluation back, at most
// reconcile.MaxSavedCadence of them, the newest (about 1 MB at most).
// Lost, stale or foreign, the sweep starts again from the first page
// and every entity is evaluated at once: that costs calls, never a run,
// since the reconcile rule and the receipts on the issues decide every
// dispatch.
type savedSweep struct {
	Token   string                   `json:"token,omitempty"`
	Cadence []reconcile.CadenceEntry `json:"cadence,omitempty"`
}

// Cadence implements poll.CadenceKeeper: the driver's cadence, kept in
// its state.
func (d *Driver) Cadence() *reconcile.Cadence { return &d.sweep.cadence }

// PollerID implements poll.PollerIdentity: the id this driver runs as,
// the one its state restored (State.Attach) or its own.
func (d *Driver) PollerID() string { return d.o.PollerID }

// restoreSweep starts the sweep and the cadence from what the state
// kept (nil: from the start).
func (d *Driver) restoreSweep(s *savedSweep) {
	if s == nil {
		return
	}
	d.mu.Lock()
	d.sweep.token = s.Token
	d.mu.Unlock()
	d.sweep.cadence.Restore(s.Cadence)
}

// savedSweep is what the state keeps of the sweep, the cadence pruned on
// the driver's clock.
func (d *Driver) savedSweep() *savedSweep {
	d.mu.Lock()
	token := d.sweep.token
	d.mu.Unlock()
	s := &savedSweep{Token: token, Cadence: d.sweep.cadence.Snapshot(d.o.Now())}
	if s.Token == "" && len(s.Cadence) == 0 {
		return nil
	}
	return s
}
