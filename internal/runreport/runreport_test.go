package runreport

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/sandbox"
)

const isolationHelp = "# HELP fullsend_run_isolation_total Agent runs by isolation mode (user: under an identity of its own; " +
	"none: run.isolation none; unavailable: fullsend could not switch users).\n" +
	"# TYPE fullsend_run_isolation_total counter\n"

func TestRunIsolationTextfile(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeUser, sandbox.ModeNone, sandbox.ModeUnavailable} {
		t.Run(string(mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fullsend.prom")
			if err := os.WriteFile(path, []byte("old content\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := WriteTextfile(path, mode); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			want.WriteString(isolationHelp)
			for _, m := range []string{"none", "unavailable", "user"} { // sorted by label
				n := "0"
				if m == string(mode) {
					n = "1"
				}
				want.WriteString(`fullsend_run_isolation_total{mode="` + m + `"} ` + n + "\n")
			}
			if string(got) != want.String() {
				t.Fatalf("textfile =\n%s\nwant\n%s", got, want.String())
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(left) != 1 {
				t.Fatalf("files left beside the textfile: %q", left)
			}
		})
	}
}

func TestRunIsolationTextfileBadPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "fullsend.prom")
	if err := WriteTextfile(path, sandbox.ModeNone); err == nil {
		t.Fatal("no error for a textfile in a missing directory")
	}
}

func TestRunIsolationOnThePollerRegistry(t *testing.T) {
	m := metrics.New(time.Minute)
	a, b := NewIsolation(m.Registerer()), NewIsolation(m.Registerer()) // a second driver reuses the counter
	a.Observe(sandbox.ModeUnavailable)
	b.Observe(sandbox.ModeUnavailable)
	a.Observe(sandbox.ModeNone)
	a.Observe("bogus")
	var nilCounter *Isolation
	nilCounter.Observe(sandbox.ModeUser) // no metrics: no panic
	for mode, want := range map[string]float64{"user": 0, "none": 1, "unavailable": 2} {
		if got := testutil.ToFloat64(a.c.WithLabelValues(mode)); got != want {
			t.Errorf("mode %s = %v, want %v", mode, got, want)
		}
	}
	if got := testutil.CollectAndCount(a.c); got != 3 {
		t.Errorf("%d series, want the three modes only", got)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	if !strings.Contains(body, `fullsend_run_isolation_total{mode="unavailable"} 2`) {
		t.Errorf("/metrics lacks the isolation counter:\n%s", body)
	}
	var none *metrics.Metrics
	if none.Registerer() != nil || NewIsolation(nil) != nil {
		t.Error("no metrics must give a nil registerer and counter")
	}
}

func TestRunReportRoundTrip(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeUser, sandbox.ModeNone, sandbox.ModeUnavailable} {
		var buf bytes.Buffer
		if err := Write(&buf, mode); err != nil {
			t.Fatal(err)
		}
		if got, want := buf.String(), `{"isolation":"`+string(mode)+`"}`+"\n"; got != want {
			t.Fatalf("report = %q, want %q", got, want)
		}
		r, err := Parse(buf.Bytes())
		if err != nil || r.Isolation != mode {
			t.Fatalf("parse = %+v, %v; want %s", r, err, mode)
		}
	}
}

func TestParseRunReport(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{"empty: the run decided nothing", "", "", ""},
		{"known mode", `{"isolation":"none"}`, "none", ""},
		{"unknown mode", `{"isolation":"root"}`, "", `unknown isolation "root"`},
		{"empty mode", `{}`, "", `unknown isolation ""`},
		{"not JSON", "isolation=user\n", "", "run report: invalid character"},
		{"two documents", `{"isolation":"user"}{"isolation":"none"}`, "", "run report: invalid character"},
		{"too long", `{"isolation":"user"}` + strings.Repeat(" ", MaxSize), "", "longer than 4096 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || string(r.Isolation) != tc.want {
				t.Fatalf("parse = %+v, %v; want %q", r, err, tc.want)
			}
		})
	}
}

func FuzzParseRunReport(f *testing.F) {
	for _, s := range []string{"", `{"isolation":"user"}` + "\n", `{"isolation":"unavailable","x":1}`, `{"isolation":7}`, "null", "[]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			if r != (Report{}) {
				t.Fatalf("error %v with a non-zero report %+v", err, r)
			}
			return
		}
		if len(data) > 0 && r.Isolation != sandbox.ModeUser && r.Isolation != sandbox.ModeNone && r.Isolation != sandbox.ModeUnavailable {
			t.Fatalf("accepted unknown mode %q from %q", r.Isolation, data)
		}
	})
}
