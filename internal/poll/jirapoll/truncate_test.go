package jirapoll_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// A 100 KB comment is cut to 4096 code points and the event says so.
func TestLongCommentIsMarkedTruncated(t *testing.T) {
	e := newEnv(t, jirasim.Options{})
	k := e.issue()
	e.seed(k)
	e.clock.Advance(3 * time.Millisecond)
	text := "/fs-triage " + strings.Repeat("a", 100*1024)
	e.sim.AddComment(k, alice, text)
	cap := &capture{}
	p := e.poller(pollerOpts{out: &recorder{}, queries: []string{"key = " + k}})
	p.o.Core = cap
	p.mustCycle()
	if len(cap.evs) != 1 {
		t.Fatalf("%d events, want 1", len(cap.evs))
	}
	c := cap.evs[0].Transition.Comment
	if !c.Truncated || c.OriginalLength != utf8.RuneCountInString(text) || utf8.RuneCountInString(c.Body) != event.MaxCommentBody {
		t.Errorf("comment truncated %v original_length %d body %d code points; want true, %d, %d",
			c.Truncated, c.OriginalLength, utf8.RuneCountInString(c.Body), utf8.RuneCountInString(text), event.MaxCommentBody)
	}
	if err := cap.evs[0].Validate(); err != nil {
		t.Errorf("invalid event: %v", err)
	}
}
