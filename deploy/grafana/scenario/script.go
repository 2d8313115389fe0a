package scenario

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// The scripted incidents, by minute.
const (
	dispatchFailFrom, dispatchFailTo = 12, 14 // GitHub refuses workflow dispatches
	outageFrom, outageTo             = 22, 25 // Jira's search answers 503
	crashAt                          = 30     // a poller dies holding a lock
	poisonAt                         = 17     // a comment by an account id over 256 characters: its event fails validation, quarantined
	burstEvery                       = 7      // a burst of comments: coalescing and 429s
)

// poison is an account id longer than the event schema allows (labels
// too long are cut to fit, so they no longer make an event invalid).
var poison = "acct-" + strings.Repeat("x", 300)

// script makes minute i's changes on the emulators.
func (w *world) script(i int, rng *rand.Rand) {
	pick := func() string { return w.issues[rng.IntN(len(w.issues))] }
	for n := 1 + rng.IntN(3); n > 0; n-- {
		w.jira.AddComment(pick(), dev, "/fs-triage")
	}
	if rng.IntN(3) == 0 {
		w.jira.AddComment(pick(), dev, "/fs-plan split this up")
	}
	if i%4 == 1 {
		w.jira.AddComment(pick(), outsider, "/fs-triage")
	}
	if i%5 == 2 {
		w.jira.AddComment(pick(), bot, "/fs-triage: done")
	}
	if i%3 == 0 {
		w.jira.AddComment(pick(), dev, "looks good to me")
	}
	if i > 0 && i%burstEvery == 0 {
		// Jira's burst limit answers a few calls 429 with a Retry-After.
		w.jira.InjectFault(jirasim.Fault{Status: 429, RetryAfter: 5 * time.Second, Times: 3})
		k := pick()
		w.jira.AddComment(k, dev, "/fs-triage")
		w.jira.AddComment(k, dev, "/fs-triage again, with the logs")
		for n := 0; n < 6; n++ {
			w.jira.AddComment(pick(), dev, "/fs-triage")
		}
	}
	w.incidents(i, pick)
}

func (w *world) incidents(i int, pick func() string) {
	switch {
	case i >= dispatchFailFrom && i <= dispatchFailTo:
		w.gh.Inject(githubsim.Fault{Endpoint: githubsim.EndpointDispatch, Status: 422, Message: "Unexpected inputs provided", Times: 2})
	case i == outageFrom:
		w.jira.InjectFault(jirasim.Fault{Endpoint: "POST /rest/api/3/search/jql", Status: 503, Times: -1})
	case i == outageTo:
		w.jira.ClearFaults()
	case i == poisonAt:
		w.poisoned = pick()
		w.jira.AddComment(w.poisoned, poison, "/fs-triage")
	case i == crashAt:
		k := pick()
		lockKey, _ := polllock.Keys(repo)
		b, _ := json.Marshal(polllock.Lock{ID: deadPoller, TS: w.clk.Now(), Phase: polllock.PhasePending})
		w.jira.SetPropertyDirect(k, lockKey, b)
		w.jira.AddComment(k, dev, "/fs-triage")
	}
}

// runTime is how long a dispatched run holds its item's lock.
const runTime = 90 * time.Second

// deadPoller is the lock id of the poller that crashed mid-cycle.
const deadPoller = "dead-poller"

// finishRuns ends the runs dispatched more than runTime ago: like
// `fullsend run` at teardown, it deletes their locks. Between cycles every
// lock but the dead poller's belongs to dispatched runs.
func (w *world) finishRuns() {
	lockKey, _ := polllock.Keys(repo)
	now := w.clk.Now()
	for _, k := range w.issues {
		raw, ok := w.jira.Property(k, lockKey)
		if !ok {
			continue
		}
		l, err := polllock.Parse(raw)
		if err == nil && l.ID != deadPoller && now.Sub(l.TS) >= runTime {
			w.jira.SetPropertyDirect(k, lockKey, nil)
		}
	}
}
