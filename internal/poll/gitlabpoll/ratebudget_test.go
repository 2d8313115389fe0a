package gitlabpoll

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// A gitlab-poll input built as `fullsend poll` builds it reports the
// rate limit GitLab's answers carry (RateLimit-*), and none where GitLab
// sends none.
func TestUsageReportsRateLimit(t *testing.T) {
	for _, limit := range []int{0, 600} {
		clk := fakeclock.New(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
		s := gitlabsim.New(gitlabsim.Options{Projects: []string{project}, Now: clk.Now, RateLimit: limit})
		base, err := s.Start()
		must(t, err)
		tr := &http.Transport{}
		in, err := build(config.InputDriver{Type: Name, Connection: config.Connection{BaseURL: base}}, project, project, s.Token(), tr,
			poll.InputEnv{Now: clk.Now})
		must(t, err)
		_, err = in.Driver.Discover(context.Background())
		must(t, err)
		rb := in.Driver.Usage().RateBudget
		tr.CloseIdleConnections()
		s.Close()
		switch {
		case limit == 0 && rb.Known:
			t.Errorf("no limit on GitLab, yet the usage reports %+v", rb)
		case limit > 0 && (!rb.Known || rb.Limit != limit || rb.Remaining != limit-2 || !rb.Reset.Equal(clk.Now().Add(time.Minute).Truncate(time.Second))):
			t.Errorf("usage reports %+v after the 2 listings, want %d of %d left until a minute from now", rb, limit-2, limit)
		}
	}
}
