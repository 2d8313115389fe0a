package jirapoll

import (
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/jira"
)

// sharedPacer is a client whose 429-learned rate the pollers of a site
// share through the cursor document (*jira.Client): Cursor.Pace.
type sharedPacer interface {
	SharedRate() (float64, bool)
	AdoptRate(r float64, age time.Duration)
	RateLowered() bool
}

// adoptPace starts this poller's client from the pace the cursor carries
// (the lowest rate a poller of the site held after a 429), so that a
// poller that joins or restarts does not learn the burst limit again by
// its own 429s. The client only ever lowers its rate with it, and ignores
// a pace older than jira.PaceMemory.
func (d *Driver) adoptPace(c cursor.Cursor) {
	sp, ok := d.o.API.(sharedPacer)
	if !ok || c.Pace == nil {
		return
	}
	sp.AdoptRate(c.Pace.Rate, d.o.Now().Sub(c.Pace.At))
}

// pace is the pace a cursor write carries: this poller's client's rate
// when a 429 taught it one and it is below the pace read (or that one is
// older than jira.PaceMemory), else the pace read while it is fresh. A
// write that carries nothing fresh drops it.
func (d *Driver) pace(read *cursor.Pace, now time.Time) *cursor.Pace {
	fresh := read != nil && now.Sub(read.At) >= 0 && now.Sub(read.At) < jira.PaceMemory
	sp, ok := d.o.API.(sharedPacer)
	if ok {
		if r, learned := sp.SharedRate(); learned && (!fresh || r < read.Rate) {
			return &cursor.Pace{Rate: r, At: now}
		}
	}
	if fresh {
		return read
	}
	return nil
}

// paceDue reports whether this poller writes the cursor for its pace
// alone: while its client's rate is still below the configured one after
// a 429, when the cursor read carries no fresh pace or one more than a
// third above that rate. A settled fleet (rates back at the configured
// one) writes nothing for it, so idle cycles stay at their two calls.
func (d *Driver) paceDue(cur *cursor.Cursor, now time.Time) bool {
	sp, ok := d.o.API.(sharedPacer)
	if !ok || cur == nil {
		return false
	}
	r, learned := sp.SharedRate()
	if !learned || !sp.RateLowered() {
		return false
	}
	p := cur.Pace
	fresh := p != nil && now.Sub(p.At) >= 0 && now.Sub(p.At) < jira.PaceMemory
	return !fresh || r*4 < p.Rate*3
}
