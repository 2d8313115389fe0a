// Package deploy holds deployment manifests; this test keeps them honest:
// they parse, the embedded configuration loads, the commands exist, and the
// alerts name metrics that fullsend really exports.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

func docs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []map[string]any
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
}

func TestKubernetesManifests(t *testing.T) {
	kinds := map[string]bool{}
	var configMap map[string]any
	for _, f := range []string{"kubernetes/cronjob.yaml", "kubernetes/deployment-watch.yaml"} {
		for _, d := range docs(t, f) {
			kind, _ := d["kind"].(string)
			if kind == "" || d["apiVersion"] == nil || d["metadata"] == nil {
				t.Fatalf("%s: document without kind/apiVersion/metadata: %v", f, d)
			}
			kinds[kind] = true
			if kind == "ConfigMap" {
				configMap = d
			}
		}
	}
	for _, k := range []string{"ConfigMap", "CronJob", "Deployment"} {
		if !kinds[k] {
			t.Errorf("no %s manifest", k)
		}
	}
	// The ConfigMap's configuration must load like a real .fullsend directory.
	data := configMap["data"].(map[string]any)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "harness"), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, key string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data[key].(string)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("config.yaml", "config.yaml")
	write(filepath.Join("harness", "triage.yaml"), "triage.yaml")
	_, reg, err := harness.LoadDir(dir, func(string) string { return "" })
	if err != nil {
		t.Fatalf("ConfigMap configuration does not load: %v", err)
	}
	if _, ok := reg.Get("triage"); !ok {
		t.Fatal("triage harness missing")
	}
}

func TestCommandsUseRealFlags(t *testing.T) {
	b, _ := os.ReadFile("kubernetes/deployment-watch.yaml")
	for _, flag := range []string{"--watch", "--interval", "--metrics-addr", "--config-dir", "--log-format"} {
		if !strings.Contains(string(b), flag) {
			t.Errorf("deployment lacks %s", flag)
		}
	}
}

func TestAlertsNameExportedMetrics(t *testing.T) {
	m := metrics.New(time.Minute)
	m.PollObserver("gha-dispatch")(poll.CycleStats{Driver: "jira-poll"})
	m.ObserveRequest("jira", "GET /x", 429, time.Millisecond)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	exported := rec.Body.String()
	groups := docs(t, "prometheus/alerts.yaml")
	if len(groups) != 1 {
		t.Fatalf("alerts: %d documents", len(groups))
	}
	re := regexp.MustCompile(`fullsend_[a-z_]+`)
	n := 0
	for _, g := range groups[0]["groups"].([]any) {
		for _, r := range g.(map[string]any)["rules"].([]any) {
			expr := r.(map[string]any)["expr"].(string)
			for _, name := range re.FindAllString(expr, -1) {
				n++
				if !strings.Contains(exported, name) {
					t.Errorf("alert uses %s, which fullsend does not export", name)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no metric names found in alerts")
	}
}
