package cli

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

// Each input's rate-limit budget is exported under its own platform's
// name: a github-poll or gitlab-poll cycle never sets Jira's.
func TestPollObserverLabelsBudgetByPlatform(t *testing.T) {
	m := metrics.New(time.Minute)
	observe := pollObserver(m)
	for _, c := range []struct {
		driver    string
		remaining int
	}{{"jira-poll", 17}, {"github-poll", 4321}, {"gitlab-poll", 1999}} {
		observe(poll.CycleStats{Driver: c.driver, RateBudget: poll.RateBudget{Known: true, Limit: 5000, Remaining: c.remaining}})
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{`fullsend_api_rate_limit_remaining{api="jira"} 17`,
		`fullsend_api_rate_limit_remaining{api="github"} 4321`, `fullsend_api_rate_limit_remaining{api="gitlab"} 1999`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s:\n%s", want, grep(string(body), "rate_limit_remaining"))
		}
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
