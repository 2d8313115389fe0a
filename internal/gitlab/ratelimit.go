package gitlab

import (
	"net/http"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

// RateLimitOf reads the rate limit an answer reports (RateLimit-Limit,
// -Remaining, -Reset in Unix seconds; GitLab sends them where a limit is
// enabled, for the current window of usually a minute), for
// httpx.Counter.Rate.
func RateLimitOf(h http.Header) (httpx.RateLimit, bool) {
	return httpx.UnixRateHeaders(h, "RateLimit-")
}
