package ghadispatch

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/scope"
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

// TestSettleUnlistedOnGitHubsClock: a run GitHub does not list yet is
// settled as created now on GitHub's clock, not the host's: with GitHub an
// hour ahead of the host, the older listed run still survives.
func TestSettleUnlistedOnGitHubsClock(t *testing.T) {
	e := newEnv(t, githubsim.Options{Now: func() time.Time { return time.Now().Add(time.Hour) }})
	d := e.driver(t, func(o *Options) { o.Ref = "main" })
	ev := &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 7}}
	sk := scope.KeyOf("triage", ev, "github")
	keyed := func(at time.Time) plan.Run {
		return plan.Run{Harness: "triage", Event: ev, Key: sk,
			WorkItem: plan.WorkItem{IdempotencyKey: changepos.KeyAt(string(sk), at)}}
	}
	change := time.Now().Add(time.Hour - time.Minute) // on GitHub's clock
	listed := keyed(change)
	if res := d.Dispatch(context.Background(), []plan.Run{listed}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	// Ours carries another subject's key, so the listing of listed's
	// scope lacks it.
	other := keyed(change)
	other.Key = scope.KeyOf("triage", &event.Event{Repo: "acme/platform", Entity: event.Entity{Kind: event.KindWorkItem, ID: 8}}, "github")
	other.WorkItem.IdempotencyKey = changepos.KeyAt(string(other.Key), change)
	res := d.Dispatch(context.Background(), []plan.Run{other})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	ours, _ := strconv.ParseInt(res[0].Ref.ID, 10, 64)
	kept, err := d.Settle(context.Background(), listed, ours)
	if err != nil {
		t.Fatal(err)
	}
	if kept {
		t.Fatal("the unlisted run was taken for the older one (created on the host's clock, an hour behind GitHub's)")
	}
}
