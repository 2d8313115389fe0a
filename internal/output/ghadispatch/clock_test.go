package ghadispatch

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

var _ poll.PlatformClock = (*Driver)(nil)

// TestPlatformNow: the driver reads GitHub's clock from the Date of its
// answers, asking GET /rate_limit first when it has had none.
func TestPlatformNow(t *testing.T) {
	for _, skew := range []time.Duration{time.Hour, -time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			e := newEnv(t, githubsim.Options{Now: func() time.Time { return time.Now().Add(skew) }})
			d := e.driver(t, nil)
			now, ok := d.PlatformNow(context.Background())
			if !ok {
				t.Fatal("GitHub's clock unknown after asking")
			}
			if off := now.Sub(time.Now().Add(skew)).Abs(); off > 2*time.Second {
				t.Fatalf("GitHub's clock read %v off", off)
			}
			if n := e.sim.Calls(githubsim.EndpointRateLimit); n != 1 {
				t.Errorf("%d calls of GET /rate_limit, want 1", n)
			}
			if _, ok := d.PlatformNow(context.Background()); !ok || e.sim.Calls(githubsim.EndpointRateLimit) != 1 {
				t.Errorf("a known clock asked again")
			}
		})
	}
}
