package jirapoll_test

import (
	"context"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/poll/jirapoll"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestPaceSharedThroughCursor: a poller that Jira's burst limit answered
// 429 publishes the rate it learned in the cursor document; a poller that
// joins later starts at that rate (one call at a time) from its first
// discovery, before any 429 of its own, instead of at its configured
// rate.
func TestPaceSharedThroughCursor(t *testing.T) {
	e := newEnv(t, jirasim.Options{BurstLimit: 10})
	e.worldClient = true
	e.clientRPS, e.clientBurst = config.DefaultRPS, config.DefaultBurst
	keys := e.issues(30, seeded, "")
	a := e.poller(pollerOpts{id: "poller-a", out: &recorder{}, cursor: jirapoll.CursorUser, n: 10, stale: 10 * time.Minute, jitter: 100 * time.Millisecond})
	ctx := context.Background()
	var pace float64
	var paceAt time.Time
	for i := 0; i < 20 && pace == 0; i++ {
		for _, k := range keys[i%3*10 : i%3*10+10] {
			e.sim.AddComment(k, alice, "/fs-triage please")
		}
		if _, err := a.cycle(ctx); err != nil {
			t.Logf("cycle %d: %v", i, err)
		}
		e.clock.Advance(time.Second)
		if c, found, err := a.drv.ReadCursor(ctx); err == nil && found && c.Pace != nil {
			pace, paceAt = c.Pace.Rate, c.Pace.At
		}
	}
	learned, ok := a.client.SharedRate()
	if pace == 0 || !ok || e.sim.RateLimited() == 0 {
		t.Fatalf("no pace in the cursor after 20 cycles (poller a's rate %v, learned %v; %d calls answered 429)", learned, ok, e.sim.RateLimited())
	}
	if pace >= config.DefaultRPS {
		t.Fatalf("pace %v, want below the configured %v", pace, config.DefaultRPS)
	}

	e.clock.Advance(2 * time.Second) // the burst window is clear
	refused := e.sim.RateLimited()
	b := e.poller(pollerOpts{id: "poller-b", out: &recorder{}, cursor: jirapoll.CursorUser, n: 10, stale: 10 * time.Minute})
	if _, ok := b.client.SharedRate(); ok {
		t.Fatal("a new poller's client has a learned rate before reading the cursor")
	}
	if _, err := b.drv.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.sim.RateLimited(); n != refused {
		t.Fatalf("poller b's discovery was answered 429 %d times; the test wants it to learn only from the cursor", n-refused)
	}
	got, ok := b.client.SharedRate()
	// The pace grows back by one step (a 40th of the rate) per clean
	// second since it was written.
	grown := pace + float64(config.DefaultRPS)/40*e.siteNow().Sub(paceAt).Seconds()
	if !ok || got >= config.DefaultRPS || got > grown {
		t.Errorf("poller b's rate after its first discovery = %v (learned %v), want the cursor's pace %v grown by its age (%v)", got, ok, pace, grown)
	}
}

// TestPaceWrittenWhileLowered: a poller whose rate is lowered writes its
// pace into a cursor it would otherwise leave alone (an idle discovery),
// once: the next idle discovery, the pace now fresh in the document,
// writes nothing.
func TestPaceWrittenWhileLowered(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	e.worldClient = true
	e.clientRPS, e.clientBurst = config.DefaultRPS, config.DefaultBurst
	e.issues(3, seeded, "")
	a := e.poller(pollerOpts{id: "poller-a", out: &recorder{}, cursor: jirapoll.CursorUser, stale: 10 * time.Minute})
	ctx := context.Background()
	for range 2 {
		if _, err := a.cycle(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if c, found, err := a.drv.ReadCursor(ctx); err != nil || !found || c.Pace != nil {
		t.Fatalf("cursor before = %+v, %v, %v; want one without a pace", c, found, err)
	}
	a.client.AdoptRate(2, 0)
	writes := func() int { return e.sim.Calls()["PUT /rest/api/3/user/properties/{propertyKey}"] }
	for i, want := range []int{1, 0} {
		before := writes()
		if _, err := a.drv.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		if got := writes() - before; got != want {
			t.Errorf("idle discovery %d wrote the cursor %d times, want %d", i+1, got, want)
		}
	}
	c, _, err := a.drv.ReadCursor(ctx)
	if err != nil || c.Pace == nil || c.Pace.Rate != 2 {
		t.Errorf("cursor pace = %+v, %v; want rate 2", c.Pace, err)
	}
}
