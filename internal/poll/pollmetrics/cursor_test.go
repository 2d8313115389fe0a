package pollmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

func TestCursorSeries(t *testing.T) {
	m := metrics.New(time.Minute)
	observe := New(m).Cycles("json")
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	observe(poll.CycleStats{Driver: "jira-poll", Cursor: poll.CursorReport{State: "used", At: at, Lag: 90 * time.Second, Moved: true, Shared: 7}})
	observe(poll.CycleStats{Driver: "jira-poll", Cursor: poll.CursorReport{State: "used", At: at, Lag: 30 * time.Second, Shared: 2}})
	observe(poll.CycleStats{Driver: "jira-poll", Cursor: poll.CursorReport{State: "fallback"}})
	observe(poll.CycleStats{Driver: "gitlab-poll"}) // no cursor: no series
	want := `
# HELP fullsend_poll_cursor_cycles_total Poll cycles by discovery cursor state (used, absent, corrupt, fallback: discovery without the cursor).
# TYPE fullsend_poll_cursor_cycles_total counter
fullsend_poll_cursor_cycles_total{driver="jira-poll",state="fallback"} 1
fullsend_poll_cursor_cycles_total{driver="jira-poll",state="used"} 2
# HELP fullsend_poll_cursor_lag_seconds How far the discovery cursor trailed the poller's clock at the last cycle.
# TYPE fullsend_poll_cursor_lag_seconds gauge
fullsend_poll_cursor_lag_seconds{driver="jira-poll"} 30
# HELP fullsend_poll_cursor_moves_total Discovery cursor writes that moved it forward.
# TYPE fullsend_poll_cursor_moves_total counter
fullsend_poll_cursor_moves_total{driver="jira-poll"} 1
# HELP fullsend_poll_left_to_others_total Eligible items left to the poller preferred for them (sharing work between pollers).
# TYPE fullsend_poll_left_to_others_total counter
fullsend_poll_left_to_others_total{driver="jira-poll"} 9
`
	names := []string{"fullsend_poll_cursor_cycles_total", "fullsend_poll_cursor_lag_seconds",
		"fullsend_poll_cursor_moves_total", "fullsend_poll_left_to_others_total"}
	if err := testutil.GatherAndCompare(gatherer(m), strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	if problems, err := testutil.GatherAndLint(gatherer(m), names...); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
}
