package periodic

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		failures int
		want     time.Duration
	}{{0, time.Minute}, {1, 2 * time.Minute}, {2, 4 * time.Minute}, {3, 8 * time.Minute}, {4, 10 * time.Minute}, {50, 10 * time.Minute}} {
		if got := Backoff(time.Minute, tc.failures); got != tc.want {
			t.Errorf("Backoff(1m, %d) = %s, want %s", tc.failures, got, tc.want)
		}
	}
}
