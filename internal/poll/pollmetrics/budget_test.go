package pollmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// The gauge follows the last reported budget; a cycle whose tracker
// reported none leaves it alone.
func TestRateBudgetGauge(t *testing.T) {
	m := metrics.New(time.Minute)
	observe := New(m).RateBudget("jira")
	observe(poll.CycleStats{RateBudget: poll.RateBudget{Known: true, Limit: 100, Remaining: 42}})
	observe(poll.CycleStats{RateBudget: poll.RateBudget{Known: true, Limit: 100, Remaining: 17}})
	observe(poll.CycleStats{})
	want := `
# HELP fullsend_api_rate_limit_remaining Rate-limit budget the API last reported remaining (X-RateLimit-Remaining).
# TYPE fullsend_api_rate_limit_remaining gauge
fullsend_api_rate_limit_remaining{api="jira"} 17
`
	if err := testutil.GatherAndCompare(gatherer(m), strings.NewReader(want), "fullsend_api_rate_limit_remaining"); err != nil {
		t.Error(err)
	}
}
