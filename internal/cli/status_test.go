package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

func TestStatusFlags(t *testing.T) {
	def := statusOptions{format: "table", limit: 100, interval: 5 * time.Second}
	cases := []struct {
		args []string
		want func(o *statusOptions)
	}{
		{[]string{"status"}, func(*statusOptions) {}},
		{[]string{"status", "--issue", "PROJ-7", "-o", "json", "--input-driver", "jira-poll"}, func(o *statusOptions) {
			o.issue, o.format, o.inputDriver = "PROJ-7", "json", "jira-poll"
		}},
		{[]string{"status", "--metrics-url", "http://127.0.0.1:9090/metrics", "--limit", "20"}, func(o *statusOptions) {
			o.metricsURL, o.limit = "http://127.0.0.1:9090/metrics", 20
		}},
		{[]string{"status", "--watch", "--interval", "2s"}, func(o *statusOptions) {
			o.watch, o.interval, o.intervalSet = true, 2*time.Second, true
		}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got *statusOptions
			app := &App{}
			if code, errs := parse(t, app, newStatusCmd(app, capture(&got)), tc.args...); code != 0 || got == nil {
				t.Fatalf("exit %d, options %v: %s", code, got, errs)
			}
			want := def
			tc.want(&want)
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("options %+v, want %+v", *got, want)
			}
		})
	}
}

func TestStatusBadInput(t *testing.T) {
	f := newPollFixture(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--interval", "2s"}, "--interval needs --watch"},
		{[]string{"status", "-o", "yaml"}, `--output "yaml": want table or json`},
		{[]string{"status", "--issue", "nope"}, `--issue "nope": not a Jira issue key`},
		{[]string{"status", "--metrics-url", "localhost:9090"}, `--metrics-url "localhost:9090"`},
		{[]string{"status", "--limit", "x"}, `invalid argument "x" for "--limit"`},
	} {
		code, _, errs := f.run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	f.env["JIRA_TOKEN"] = "not-the-token"
	code, out, errs := f.run(t, "status")
	if code != ExitUsage || !strings.Contains(errs, "refused the credentials") || strings.Contains(out+errs, "not-the-token") {
		t.Errorf("refused credentials: exit %d, stderr %q", code, errs)
	}
}

func TestStatusCommand(t *testing.T) {
	f := newPollFixture(t)
	f.sim.AddIssue(jirasim.IssueSpec{Project: "PROJ", Reporter: "acct-dev"})
	code, out, errs := f.run(t, "status")
	if code != 0 || !strings.Contains(out, "LOCKS: none") || !strings.HasSuffix(out, "api calls: 3\n") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// One search, and the cursor: the account's id, then its property.
	reads := map[string]bool{"POST /rest/api/3/search/jql": true, "GET /rest/api/3/myself": true,
		"GET /rest/api/3/user/properties/{propertyKey}": true}
	for ep, n := range f.sim.Calls() {
		if !reads[ep] || n != 1 {
			t.Errorf("status called %s %d times", ep, n)
		}
	}
}
