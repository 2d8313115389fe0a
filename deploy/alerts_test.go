package deploy

import (
	"bufio"
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollmetrics"
)

// ruleFile is the part of a prometheus-operator PrometheusRule fullsend
// uses; decoding rejects any other field.
type ruleFile struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	} `yaml:"spec"`
}

const docsURL = "https://github.com/fullsend-dev/fullsend/blob/main/"

func TestAlerts(t *testing.T) {
	b, err := os.ReadFile("prometheus/alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&rf); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	if rf.APIVersion != "monitoring.coreos.com/v1" || rf.Kind != "PrometheusRule" || rf.Metadata.Name == "" {
		t.Fatalf("alerts.yaml is not a named PrometheusRule: %s %s", rf.APIVersion, rf.Kind)
	}
	series := exportedSeries(t)
	anchors := map[string]map[string]bool{}
	alerts := map[string]string{}
	for _, g := range rf.Spec.Groups {
		for _, r := range g.Rules {
			alerts[r.Alert] = r.Expr
			if r.Alert == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %q: needs alert, labels.severity and annotations.summary", r.Alert)
			}
			checkSelectors(t, r.Alert, r.Expr, series)
			checkRunbook(t, r.Alert, r.Annotations["runbook_url"], anchors)
		}
	}
	// The alerts the operations guide promises.
	for name, must := range map[string]string{
		"FullsendPollerStalled":          "fullsend_poll_last_success_timestamp_seconds",
		"FullsendPollerNeverSucceeded":   "absent(fullsend_poll_last_success_timestamp_seconds",
		"FullsendDispatchFailuresRising": `fullsend_dispatches_total{result="failed"}`,
		"FullsendLocksLost":              `fullsend_poll_locks_total{outcome="lost"}`,
	} {
		if !strings.Contains(alerts[name], must) {
			t.Errorf("alert %s: expr %q does not use %s", name, alerts[name], must)
		}
	}
}

// selectorRE matches a metric name and its optional {label="value",...}.
var (
	selectorRE = regexp.MustCompile(`\b(fullsend_[a-z0-9_]+)(\{[^}]*\})?`)
	matcherRE  = regexp.MustCompile(`([a-z_]+)\s*=\s*"([^"]*)"`)
)

// checkSelectors: every fullsend metric in expr is exported, and every
// label="value" it matches on occurs on that metric.
func checkSelectors(t *testing.T, alert, expr string, series map[string][]string) {
	t.Helper()
	found := selectorRE.FindAllStringSubmatch(expr, -1)
	if len(found) == 0 {
		t.Errorf("alert %s: no fullsend metric in %q", alert, expr)
	}
	for _, m := range found {
		lines, ok := series[m[1]]
		if !ok {
			t.Errorf("alert %s: fullsend does not export %s", alert, m[1])
			continue
		}
		for _, lm := range matcherRE.FindAllStringSubmatch(m[2], -1) {
			pair := lm[1] + `="` + lm[2] + `"`
			if !anyContains(lines, pair) {
				t.Errorf("alert %s: %s has no series with %s", alert, m[1], pair)
			}
		}
	}
}

func anyContains(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// exportedSeries scrapes a metrics.Metrics that has seen a good and a
// failed cycle and a throttled request, and returns its sample lines by
// metric name.
func exportedSeries(t *testing.T) map[string][]string {
	t.Helper()
	m := metrics.New(time.Minute)
	observe := pollmetrics.New(m).Cycles("gha-dispatch")
	observe(poll.CycleStats{Driver: "jira-poll", LocksAttempted: 1, LocksLost: 1, DispatchesFailed: 1, ChangesQuarantined: 1})
	observe(poll.CycleStats{Driver: "jira-poll", Error: os.ErrDeadlineExceeded.Error()})
	m.ObserveRequest("jira", "GET /rest/api/3/myself", 429, time.Millisecond)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	series := map[string][]string{}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line[:strings.IndexAny(line, "{ ")]
		series[name] = append(series[name], line)
	}
	if len(series) == 0 {
		t.Fatal("no metrics exported")
	}
	return series
}

// checkRunbook: the runbook link points into docs/ at a heading that exists.
func checkRunbook(t *testing.T, alert, url string, anchors map[string]map[string]bool) {
	t.Helper()
	path, frag, ok := strings.Cut(strings.TrimPrefix(url, docsURL), "#")
	if !strings.HasPrefix(url, docsURL) || !ok || !strings.HasPrefix(path, "docs/") {
		t.Errorf("alert %s: runbook_url %q is not %sdocs/FILE.md#heading", alert, url, docsURL)
		return
	}
	if anchors[path] == nil {
		anchors[path] = headingAnchors(t, filepath.Join("..", filepath.FromSlash(path)))
	}
	if !anchors[path][frag] {
		t.Errorf("alert %s: %s has no heading #%s", alert, path, frag)
	}
}

// headingAnchors returns the GitHub anchors of a Markdown file's headings:
// lower case, punctuation dropped, spaces as hyphens.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		out[anchor(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
	}
	return out
}

func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"10. Troubleshooting from the cycle log": "10-troubleshooting-from-the-cycle-log",
		"FullsendPollerStalled":                  "fullsendpollerstalled",
		"Metrics and `/healthz`":                 "metrics-and-healthz",
	} {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}
