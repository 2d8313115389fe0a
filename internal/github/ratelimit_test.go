package github

import (
	"net/http"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

// The primary REST limit is read from x-ratelimit-*; another resource's
// (search, GraphQL) is not the REST budget.
func TestRateLimitOf(t *testing.T) {
	cases := []struct {
		name     string
		resource string
		want     httpx.RateLimit
		ok       bool
	}{
		{"core", "core", httpx.RateLimit{Limit: 5000, Remaining: 4321, Reset: time.Unix(1_800_000_000, 0).UTC()}, true},
		{"no resource named", "", httpx.RateLimit{Limit: 5000, Remaining: 4321, Reset: time.Unix(1_800_000_000, 0).UTC()}, true},
		{"search", "search", httpx.RateLimit{}, false},
		{"graphql", "graphql", httpx.RateLimit{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			h.Set("X-RateLimit-Limit", "5000")
			h.Set("X-RateLimit-Remaining", "4321")
			h.Set("X-RateLimit-Reset", "1800000000")
			if tc.resource != "" {
				h.Set("X-RateLimit-Resource", tc.resource)
			}
			if got, ok := RateLimitOf(h); got != tc.want || ok != tc.ok {
				t.Fatalf("%+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
