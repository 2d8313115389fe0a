package github

import (
	"context"
	"net/http"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
)

// TestWaitsOnGitHubsClock: a rate limit's reset and a Retry-After date
// are GitHub's times: the wait is measured against the answer's Date,
// whatever the host's clock says (here GitHub runs a day off it).
func TestWaitsOnGitHubsClock(t *testing.T) {
	for _, skew := range []time.Duration{24 * time.Hour, -24 * time.Hour} {
		at := time.Now().Add(skew).Truncate(time.Second)
		resp := func(h http.Header) *http.Response {
			h.Set("Date", at.UTC().Format(http.TimeFormat))
			return &http.Response{StatusCode: http.StatusForbidden, Header: h}
		}
		rl := &gogithub.RateLimitError{Response: resp(http.Header{}), Message: "API rate limit exceeded",
			Rate: gogithub.Rate{Reset: gogithub.Timestamp{Time: at.Add(30 * time.Second)}}}
		f := Classify(context.Background(), &gogithub.Response{Response: rl.Response}, rl, true)
		if f.Wait != 31*time.Second {
			t.Errorf("skew %v: reset 30 s after the answer's Date: wait %v, want 31s", skew, f.Wait)
		}
		h := http.Header{}
		h.Set("Retry-After", at.Add(20*time.Second).UTC().Format(http.TimeFormat))
		if got := retryAfter(resp(h)); got != 20*time.Second {
			t.Errorf("skew %v: Retry-After 20 s after the answer's Date: wait %v, want 20s", skew, got)
		}
	}
}
