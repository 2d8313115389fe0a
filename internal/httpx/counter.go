package httpx

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Counter is a RoundTripper that counts the requests sent through it to
// Next (each attempt of a retried request counts): a driver's API usage.
// With Rate set, it also keeps the rate-limit budget the last answer
// reported (RateLimit). It is safe for concurrent use.
type Counter struct {
	Next http.RoundTripper
	// Rate reads a platform's rate-limit headers (github.RateLimitOf,
	// gitlab.RateLimitOf); ok is false when an answer carries none.
	Rate  func(http.Header) (rl RateLimit, ok bool)
	calls atomic.Int64

	mu   sync.Mutex
	last RateLimit
	seen bool
}

// RateLimit is a rate-limit budget as a platform's answer reported it:
// Remaining of Limit requests until Reset (zero when not given).
type RateLimit struct {
	Limit, Remaining int
	Reset            time.Time
}

// RoundTrip counts r and sends it through Next.
func (c *Counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.calls.Add(1)
	resp, err := c.Next.RoundTrip(r)
	if err == nil && resp != nil && c.Rate != nil {
		if rl, ok := c.Rate(resp.Header); ok {
			c.mu.Lock()
			c.last, c.seen = rl, true
			c.mu.Unlock()
		}
	}
	return resp, err
}

// Calls is the number of requests sent so far.
func (c *Counter) Calls() int { return int(c.calls.Load()) }

// RateLimit is the budget the last answer that reported one gave; ok is
// false before any did.
func (c *Counter) RateLimit() (rl RateLimit, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last, c.seen
}

// UnixRateHeaders reads the rate-limit headers prefix+"Limit",
// prefix+"Remaining" and prefix+"Reset" (Unix seconds; optional), as
// GitHub ("X-RateLimit-") and GitLab ("RateLimit-") send them. ok is
// false unless Limit is a positive integer and Remaining one of at least 0
// (both at most a billion); a Reset that is not a positive integer is left zero.
func UnixRateHeaders(h http.Header, prefix string) (rl RateLimit, ok bool) {
	limit, err1 := strconv.Atoi(h.Get(prefix + "Limit"))
	remaining, err2 := strconv.Atoi(h.Get(prefix + "Remaining"))
	if err1 != nil || err2 != nil || limit <= 0 || remaining < 0 || limit > maxRate || remaining > maxRate {
		return RateLimit{}, false
	}
	rl = RateLimit{Limit: limit, Remaining: remaining}
	if s, err := strconv.ParseInt(h.Get(prefix+"Reset"), 10, 64); err == nil && s > 0 && s < maxUnix {
		rl.Reset = time.Unix(s, 0).UTC()
	}
	return rl, true
}

// maxRate bounds the rate-limit numbers believed; maxUnix the reset times
// (the year 9999).
const (
	maxRate = 1_000_000_000
	maxUnix = 253402300799
)
