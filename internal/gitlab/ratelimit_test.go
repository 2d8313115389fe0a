package gitlab

import (
	"net/http"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

// GitLab's RateLimit-* headers, where a limit is enabled; none without.
func TestRateLimitOf(t *testing.T) {
	h := http.Header{}
	if _, ok := RateLimitOf(h); ok {
		t.Fatal("a budget from an answer without RateLimit-* headers")
	}
	h.Set("RateLimit-Limit", "2000")
	h.Set("RateLimit-Observed", "3")
	h.Set("RateLimit-Remaining", "1997")
	h.Set("RateLimit-Reset", "1800000060")
	h.Set("RateLimit-ResetTime", "Fri, 15 Jan 2027 08:01:00 GMT")
	want := httpx.RateLimit{Limit: 2000, Remaining: 1997, Reset: time.Unix(1_800_000_060, 0).UTC()}
	if got, ok := RateLimitOf(h); !ok || got != want {
		t.Fatalf("%+v %v, want %+v", got, ok, want)
	}
}
