package httpx

import (
	"net/http"
	"sync/atomic"
)

// Counter is a RoundTripper that counts the requests sent through it to
// Next (each attempt of a retried request counts): a driver's API usage.
// It is safe for concurrent use.
type Counter struct {
	Next  http.RoundTripper
	calls atomic.Int64
}

// RoundTrip counts r and sends it through Next.
func (c *Counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.calls.Add(1)
	return c.Next.RoundTrip(r)
}

// Calls is the number of requests sent so far.
func (c *Counter) Calls() int { return int(c.calls.Load()) }
