package gitlabpoll

import (
	"maps"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/forgepoll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// saved is what gitlab-poll keeps in the state directory (package
// pollstate), so that a one-shot process's idle cycle costs what a
// --watch poller's does (the two listings), and so that a plan printed
// rather than dispatched (the json output) holds no change twice: per
// subject, the updated_at it was fully handled at and the newest change
// position handled, and the tool's own account. The pipelines stay the
// record of what was dispatched: a subject whose saved position is
// older than what GitLab shows is read again and reconciled against
// them, so an old, lost or foreign state costs calls and never loses or
// doubles a dispatch.
//
// With scheduled discovery it also keeps the sweep's position, the
// versions given up on, the entity versions whose older pipelines were
// read, and the fullsend pipelines of the window as last listed (their
// keys and statuses), so that an idle one-shot cycle lists no pipeline.
type saved struct {
	Account     *pollstate.Account                `json:"account,omitempty"`
	Handled     map[string]mark                   `json:"handled,omitempty"`
	Sweep       sweepPos                          `json:"sweep,omitzero"`
	Quarantined reconcile.GiveUps                 `json:"quarantined,omitempty"`
	Older       map[string]forgepoll.OlderRecords `json:"older,omitempty"`
	Entities    map[string]poll.SweptEntity       `json:"entities,omitempty"` // swept subjects' entities at their updated_at
	// Pipelines: by id; PipelinesRead: a listing was read (even empty)
	Pipelines     map[int64]pipe `json:"pipelines,omitempty"`
	PipelinesRead bool           `json:"pipelines_read,omitempty"`
}

// mark is a subject's handled state: Updated, the updated_at at which
// every change was handled (zero while some wait for their grace); At
// and AtID, the newest change position handled (time, then the note's or
// label event's id), where the next detection starts. A state without
// AtID (an older one) covers no change with an id at At.
type mark struct {
	Updated time.Time `json:"updated,omitzero"`
	At      time.Time `json:"at,omitzero"`
	AtID    int64     `json:"at_id,omitempty"`
}

func (m mark) pos() changepos.Pos { return changepos.Pos{At: m.At, ID: max(m.AtID, 0)} }

// maxSkew is how far in the future a saved time may lie before it is not
// believed.
const maxSkew = 5 * time.Minute

// restore loads the saved state, if any; a state older than twice the
// lookback is of no use and ignored, times in the future are dropped.
func (p *Poller) restore() {
	var s saved
	if !p.o.State.Load(&s, 2*p.o.Lookback) {
		return
	}
	p.account.Restore(s.Account)
	limit := p.o.Now().Add(maxSkew)
	p.restoreScheduled(s, limit)
	for k, m := range s.Handled {
		if k == "" || m.Updated.After(limit) || m.At.After(limit) {
			continue
		}
		if !m.Updated.IsZero() {
			p.handled[k] = m.Updated
		}
		if !m.At.IsZero() {
			p.done[k] = m.pos()
		}
	}
}

// SaveState writes the poller's state (poll.StateSaver); a failure is
// logged.
func (p *Poller) SaveState() {
	if p.o.State == nil {
		return
	}
	p.mu.Lock()
	s := saved{Account: p.account.Saved(), Handled: map[string]mark{}, Sweep: p.sweepAt,
		Quarantined: p.giveUps.Saved(), Older: p.older.Saved(), Entities: p.ents.Saved()}
	for k, t := range p.handled {
		s.Handled[k] = mark{Updated: t, At: p.done[k].At, AtID: p.done[k].ID}
	}
	for k, pos := range p.done {
		if _, ok := s.Handled[k]; !ok {
			s.Handled[k] = mark{At: pos.At, AtID: pos.ID}
		}
	}
	p.mu.Unlock()
	p.keys.mu.Lock()
	s.Pipelines, s.PipelinesRead = maps.Clone(p.keys.pipes), p.keys.wasRead
	p.keys.mu.Unlock()
	p.o.State.SaveLogged(s)
}

// SaveState implements poll.StateSaver.
func (d *Driver) SaveState() { d.p.SaveState() }

// restoreScheduled loads scheduled discovery's part of s: entries with
// times in the future (after limit) or without a scoped key are dropped.
func (p *Poller) restoreScheduled(s saved, limit time.Time) {
	if s.Sweep.Page > 0 {
		p.sweepAt = s.Sweep
	}
	for k, t := range s.Quarantined {
		if k != "" && !t.After(limit) {
			p.giveUps.Restore(k, t)
		}
	}
	for k, c := range s.Entities {
		if k != "" && c.Entity != nil && c.Entity.Validate() == nil && !c.Updated.After(limit) {
			p.ents.Restore(k, c)
		}
	}
	for k, o := range s.Older {
		if k != "" {
			p.older.Restore(k, o)
		}
	}
	k := p.keys
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, pp := range s.Pipelines {
		if _, _, _, ok := reconcile.SplitScoped(pp.Key); !ok || id <= 0 || pp.Created.After(limit) || pp.Updated.After(limit) {
			continue
		}
		k.pipes[id], k.byID[id], k.keys[pp.Key] = pp, pp.Key, true
		k.note(pp.Key)
	}
	k.wasRead = s.PipelinesRead
}
