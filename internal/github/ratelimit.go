package github

import (
	"net/http"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

// RateLimitOf reads the primary REST rate limit an answer reports
// (x-ratelimit-limit, -remaining, -reset in Unix seconds), for
// httpx.Counter.Rate. An answer about another resource than "core" (the
// search or GraphQL limits) is not the REST budget: ok is false.
func RateLimitOf(h http.Header) (httpx.RateLimit, bool) {
	if r := h.Get("X-RateLimit-Resource"); r != "" && r != "core" {
		return httpx.RateLimit{}, false
	}
	return httpx.UnixRateHeaders(h, "X-RateLimit-")
}
