package status

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/metrics"
)

// maxScrape bounds what is read from a metrics endpoint.
const maxScrape = 4 << 20

// Series read from a poller's /metrics (internal/metrics exports them).
const (
	seriesCycles      = "fullsend_poll_cycles_total"
	seriesDuration    = "fullsend_poll_cycle_duration_seconds"
	seriesLastSuccess = "fullsend_poll_last_success_timestamp_seconds"
	seriesAPI         = "fullsend_api_requests_total"
	seriesRemaining   = "fullsend_api_rate_limit_remaining"
)

// scrape is what one read of a poller's /metrics and /healthz gave.
type scrape struct {
	note     string // why nothing is known
	families map[string]*dto.MetricFamily
	health   *metrics.Health
}

// checkMetricsURL accepts an absolute http(s) URL.
func checkMetricsURL(raw string) error {
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	shown := raw
	switch {
	case err == nil:
		shown = u.Redacted()
	case strings.Contains(raw, "@"):
		shown = "(hidden: it may hold a password)"
	}
	return fmt.Errorf("--metrics-url %q: want an http(s) URL such as http://127.0.0.1:9090/metrics", shown)
}

// scrape reads the poller's metrics and health once per snapshot; a
// poller that cannot be read is reported, not an error.
func (s *snapshotter) scrape(ctx context.Context) *scrape {
	if s.o.MetricsURL == "" {
		return &scrape{note: "unknown (no --metrics-url)"}
	}
	body, _, err := s.get(ctx, s.o.MetricsURL)
	if err != nil {
		return &scrape{note: "unknown: " + err.Error()}
	}
	u, _ := url.Parse(s.o.MetricsURL)
	from := u.Redacted()
	u.Path, u.RawQuery = "/healthz", ""
	hb, code, herr := s.get(ctx, u.String())
	if herr != nil && code != http.StatusServiceUnavailable {
		hb = nil
	}
	return parseScrape(from, body, hb)
}

// parseScrape reads a /metrics body and, when not nil, a /healthz body
// (outside input: FuzzParseScrape).
func parseScrape(from string, metricsBody, healthBody io.Reader) *scrape {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(metricsBody)
	if err != nil {
		return &scrape{note: "unknown: " + from + " is not Prometheus text: " + err.Error()}
	}
	sc := &scrape{families: fams}
	var h metrics.Health
	if healthBody != nil && json.NewDecoder(healthBody).Decode(&h) == nil {
		sc.health = &h
	}
	return sc
}

// get reads a URL (503 bodies too: /healthz answers them when unhealthy).
func (s *snapshotter) get(ctx context.Context, u string) (io.Reader, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	shown := req.URL.Redacted() // never a password from the URL
	resp, err := s.o.HTTP.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s unreachable", shown)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxScrape))
	if err != nil {
		return nil, resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK {
		return byteReader(b), resp.StatusCode, fmt.Errorf("%s answered HTTP %d", shown, resp.StatusCode)
	}
	return byteReader(b), resp.StatusCode, nil
}

// systemOf is the API system label of a poll input driver's calls.
func systemOf(driver string) string {
	switch driver {
	case drivername.GitLabPoll:
		return "gitlab"
	case drivername.JiraPoll:
		return "jira"
	}
	return "github"
}

// poller is the liveness of driver's cycles, or why it is unknown.
func (sc *scrape) poller(driver string, now time.Time) (*Poller, string) {
	if sc.families == nil {
		return nil, sc.note
	}
	p := &Poller{}
	ok := sum(sc.families[seriesCycles], map[string]string{"driver": driver, "result": "ok"})
	failed := sum(sc.families[seriesCycles], map[string]string{"driver": driver, "result": "error"})
	p.CyclesOK, p.CyclesFailed = int(ok), int(failed)
	if ok+failed == 0 {
		return nil, "no " + driver + " cycle yet"
	}
	if h := histogram(sc.families[seriesDuration], driver); h != nil && h.GetSampleCount() > 0 {
		p.MeanDurationSec = h.GetSampleSum() / float64(h.GetSampleCount())
	}
	if ts := sum(sc.families[seriesLastSuccess], map[string]string{"driver": driver}); ts > 0 {
		t := time.Unix(int64(ts), 0).UTC()
		p.LastSuccess = &t
	}
	system := systemOf(driver)
	p.APICalls = int(sum(sc.families[seriesAPI], map[string]string{"system": system}))
	if f := sc.families[seriesRemaining]; hasSeries(f, map[string]string{"api": system}) {
		n := int(sum(f, map[string]string{"api": system}))
		p.BudgetRemaining = &n
	}
	sc.applyHealth(p, now)
	return p, ""
}
