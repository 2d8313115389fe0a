package githubpoll

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/pollstate"
	"github.com/fullsend-dev/fullsend/internal/reconcile"
)

// saved is what github-poll keeps in the state directory (package
// pollstate), so that a one-shot process's idle cycle costs what a
// --watch poller's does: the window's floor (the listings' URLs name
// it), each listing's ETag with its items (a 304 answer is then free and
// complete), the issues and pull requests handled at their updated_at,
// and the tool's own account. Everything in it is re-checked against
// GitHub: a listing is only reused when GitHub answers 304, an item
// handled at an older updated_at is read again and reconciled against
// the run list, so an old, lost or foreign state costs requests and
// never loses or doubles a change. For scheduled discovery it also keeps
// the sweep's position, the swept entities (used only at the same
// updated_at) and the entity versions given up on: a lost state has
// such a version tried again (entity.retry.max more runs), never lost.
type saved struct {
	Account  *pollstate.Account      `json:"account,omitempty"`
	Floor    time.Time               `json:"floor"`
	Listings map[string]savedListing `json:"listings,omitempty"`
	Handled  map[int]time.Time       `json:"handled,omitempty"`
	// scheduled discovery (sweep.go, records.go)
	SweepAt     int                      `json:"sweep_at,omitempty"`
	Entities    map[int]poll.SweptEntity `json:"entities,omitempty"`
	Quarantined reconcile.GiveUps        `json:"quarantined,omitempty"`
}

type savedListing struct {
	ETag  string            `json:"etag"`
	Items []json.RawMessage `json:"items"`
}

// maxSkew is how far in the future a saved time may lie (the clocks of
// two hosts) before it is not believed.
const maxSkew = 5 * time.Minute

// restore loads the saved state, if any. A state older than twice the
// lookback is of no use (the window's floor would move) and is ignored;
// times in the future are not believed.
func (p *Poller) restore() {
	var s saved
	if !p.o.State.Load(&s, 2*p.o.Lookback) {
		return
	}
	limit := p.o.Now().Add(maxSkew)
	p.account.Restore(s.Account)
	if !s.Floor.IsZero() && !s.Floor.After(limit) {
		p.floor = s.Floor
		for u, l := range s.Listings {
			if l.ETag != "" && strings.Contains(u, "?") {
				p.cache.put(u, condEntry{etag: l.ETag, items: l.Items})
			}
		}
	}
	for n, t := range s.Handled {
		if n > 0 && !t.After(limit) {
			p.handled[n] = t
		}
	}
	p.restoreScheduled(s)
}

// restoreScheduled loads scheduled discovery's part of s: a remembered
// entity is only used while its item's updated_at is the same, a
// quarantine only while its version is.
func (p *Poller) restoreScheduled(s saved) {
	p.sweepAt = max(s.SweepAt, 1)
	for n, c := range s.Entities {
		if n > 0 && c.Entity != nil {
			p.ents.Restore(n, c)
		}
	}
	for k, t := range s.Quarantined {
		p.giveUps.Restore(k, t)
	}
}

// SaveState writes the poller's state (poll.StateSaver); a failure is
// logged.
func (p *Poller) SaveState() {
	if p.o.State == nil {
		return
	}
	p.mu.Lock()
	s := saved{Account: p.account.Saved(), Floor: p.floor, Handled: map[int]time.Time{}, Listings: map[string]savedListing{}}
	for n, t := range p.handled {
		s.Handled[n] = t
	}
	s.SweepAt = p.sweepAt
	p.mu.Unlock()
	s.Entities, s.Quarantined = p.ents.Saved(), p.giveUps.Saved()
	p.cache.mu.Lock()
	for u, e := range p.cache.entries {
		s.Listings[u] = savedListing{ETag: e.etag, Items: e.items}
	}
	p.cache.mu.Unlock()
	p.o.State.SaveLogged(s)
}

// SaveState implements poll.StateSaver.
func (d *Driver) SaveState() { d.p.SaveState() }
