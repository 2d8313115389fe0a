// Package trackerclock is the clock of a remote service (Jira, GitHub,
// GitLab) as seen from this host: the host's clock corrected by an offset
// estimated from the service's answers (their HTTP Date header). Every
// comparison of a time the service wrote (a change's time, a lock's ts, a
// lastCheck, an intent, the discovery cursor) with "now" uses it, so that
// hosts whose clocks disagree judge the same document the same way.
//
// The estimate. An answer's Date (RFC 9110, second resolution) says the
// service's clock read S with D <= S < D+1s at some instant between the
// moment this host sent the request (host time t0) and the moment it
// received the answer's headers (t1). The service's clock minus the host's
// at that instant, the offset, therefore lies in [D-t1, D+1s-t0]: an
// interval as wide as the round trip plus the Date's one second. Each
// answer gives one interval; the clock keeps their intersection (after
// widening the kept one by MaxDrift for the host time passed since it was
// made, as neither clock is perfect), which narrows below one second when
// answers fall on different fractions of a second. Answers with a round
// trip over MaxRoundTrip are ignored: their interval is too wide to keep
// the estimate within MaxError.
//
// An outlier, an answer whose interval does not meet the kept one, means
// either that a clock was stepped or that something else answered (a
// proxy stamping its own Date on an answer of its own, without Age). One
// outlier alone changes nothing: it is held as a candidate, and a second
// outlier that meets it confirms the step, their intersection replacing
// the kept interval. An answer that meets the kept interval drops the
// candidate.
//
// The offset used is the point of the kept interval nearest zero that is
// within MaxError of every point of it, when the interval holds zero: a
// host whose clock agrees with the service within what the answers can
// tell (the usual case with time sync) keeps its own, more precise clock
// untouched, or nearly. Otherwise it is the interval's midpoint, off the
// true offset by at most half the interval's width. Either way the
// estimate is within MaxError of the service's clock (at the last answer;
// MaxDrift of the time since may add to it), so that two processes'
// estimates differ by at most 2*MaxError (ClockError). Before any
// answer the offset is zero.
package trackerclock

import (
	"net/http"
	"sync"
	"time"
)

// Defaults of the estimator.
const (
	// MaxError bounds how far a known clock's estimate is from the
	// service's clock (at its last answer).
	MaxError = time.Second
	// MaxRoundTrip: answers that took longer bound the offset too loosely
	// (an interval wider than 2*MaxError) to be used.
	MaxRoundTrip = 2*MaxError - DateResolution
	// MaxDrift is how fast two unsynchronized clocks may drift apart
	// (twice a common crystal's 100 ppm), by which a kept interval widens
	// with the host time passed since it was made.
	MaxDrift = 200e-6
	// DateResolution is the resolution of the HTTP Date header.
	DateResolution = time.Second
	// MaxOffset: a Date further off the host's clock is not a clock.
	MaxOffset = 10 * 365 * 24 * time.Hour
)

// Clock is one service's clock. The zero value is not usable; call New.
// It is safe for concurrent use.
type Clock struct {
	host func() time.Time

	mu    sync.Mutex
	known bool
	kept  span // the offset (service − host) lies in it
	cand  span // an outlier awaiting confirmation, when cand.ok
}

// span is an interval of offsets, made (or last narrowed) at host time at.
type span struct {
	lo, hi time.Duration
	at     time.Time
	ok     bool
}

// widened is s widened by MaxDrift of the host time from s.at to now.
func (s span) widened(now time.Time) span {
	w := time.Duration(float64(now.Sub(s.at).Abs()) * MaxDrift)
	s.lo, s.hi = s.lo-w, s.hi+w
	return s
}

// meet is the intersection of s and o, made at o.at, if they meet.
func (s span) meet(o span) (span, bool) {
	lo, hi := max(s.lo, o.lo), min(s.hi, o.hi)
	return span{lo: lo, hi: hi, at: o.at, ok: true}, lo <= hi
}

// New returns a clock on the host clock host (nil: time.Now), with no
// observation yet.
func New(host func() time.Time) *Clock {
	if host == nil {
		host = time.Now
	}
	return &Clock{host: host}
}

// Now is the service's current time as best known: the host's clock plus
// the estimated offset. A nil Clock is the host's clock (time.Now).
func (c *Clock) Now() time.Time {
	if c == nil {
		return time.Now()
	}
	return c.host().Add(c.Offset())
}

// Host is the host clock the Clock corrects.
func (c *Clock) Host() time.Time { return c.host() }

// Offset is the offset in use: zero when the known interval holds zero
// (and before any observation, and for a nil Clock), else the interval's
// midpoint.
func (c *Clock) Offset() time.Duration {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return estimate(c.kept.lo, c.kept.hi, c.known)
}

// Bounds reports the interval the offset is known to lie in; known is
// false before any usable observation.
func (c *Clock) Bounds() (lo, hi time.Duration, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kept.lo, c.kept.hi, c.known
}

// Known reports whether an answer has been observed: before, Now is the
// host's clock unchanged. A nil Clock knows nothing.
func (c *Clock) Known() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.known
}

// estimate is the offset used for the interval [lo, hi]: when it holds
// zero, the point nearest zero within MaxError of all of it, else (or
// when no point is, the interval having widened by drift) its midpoint.
func estimate(lo, hi time.Duration, known bool) time.Duration {
	switch {
	case !known:
		return 0
	case lo <= 0 && hi >= 0 && hi-lo <= 2*MaxError:
		return min(max(0, hi-MaxError), lo+MaxError)
	}
	return lo + (hi-lo)/2
}

// Observe records one answer: sent and received are host times around the
// request, date the answer's Date header value. Unparsable dates, dates
// over MaxOffset away and round trips that are negative or over
// MaxRoundTrip are ignored; it reports whether the observation was used.
func (c *Clock) Observe(sent, received time.Time, date string) bool {
	if date == "" {
		return false
	}
	d, err := http.ParseTime(date)
	if err != nil {
		return false
	}
	rtt := received.Sub(sent)
	if rtt < 0 || rtt > MaxRoundTrip {
		return false
	}
	lo, hi := d.Sub(received), d.Add(DateResolution).Sub(sent)
	if lo.Abs() > MaxOffset || hi.Abs() > MaxOffset {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.observe(span{lo: lo, hi: hi, at: received, ok: true})
	return true
}

// observe records the interval n of one answer. Requires c.mu.
func (c *Clock) observe(n span) {
	if !c.known {
		c.kept, c.known = n, true
		return
	}
	if x, ok := c.kept.widened(n.at).meet(n); ok {
		c.kept, c.cand = x, span{}
		return
	}
	if c.cand.ok {
		if x, ok := c.cand.widened(n.at).meet(n); ok {
			c.kept, c.cand = x, span{} // a second outlier confirms the step
			return
		}
	}
	c.cand = n
}

// Transport returns a round tripper that passes every request to next
// (nil: http.DefaultTransport) and observes the Date of every answer,
// except answers served from a cache (an Age header), whose Date is the
// origin's time of an earlier request.
func (c *Clock) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return transport{c: c, next: next}
}

type transport struct {
	c    *Clock
	next http.RoundTripper
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	sent := t.c.host()
	resp, err := t.next.RoundTrip(req)
	if err == nil && resp != nil && resp.Header.Get("Age") == "" {
		t.c.Observe(sent, t.c.host(), resp.Header.Get("Date"))
	}
	return resp, err
}

// CloseIdleConnections forwards to the wrapped transport.
func (t transport) CloseIdleConnections() {
	if ci, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}
