package ghadispatch

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// TestDispatchFailureClasses drives each failure class through the
// emulator's injected faults.
func TestDispatchFailureClasses(t *testing.T) {
	tests := []struct {
		name       string
		faults     []githubsim.Fault
		mod        func(*Options)
		run        func(plan.Run) plan.Run
		wantErr    string // substring; "" means success
		ambiguous  bool
		calls      int             // dispatch requests made
		runs       int             // runs the emulator started
		wantSleeps []time.Duration // exact waits asked for
	}{
		{
			name:    "workflow missing is permanent",
			run:     func(r plan.Run) plan.Run { r.Workflow = "missing.yml"; return r },
			wantErr: "workflow missing.yml not found in acme/platform on ref main (or the repository is not visible to the token): run `fullsend workflows generate`",
			calls:   1,
		},
		{
			name:    "repository missing is permanent",
			mod:     func(o *Options) { o.Repo = "acme/gone"; o.Ref = "main" },
			wantErr: "not found in acme/gone",
			calls:   1,
		},
		{
			name:    "unknown ref is permanent",
			mod:     func(o *Options) { o.Ref = "nope" },
			wantErr: "ref nope does not exist in acme/platform: set outputs.gha-dispatch.ref",
			calls:   1,
		},
		{
			name:    "undeclared inputs are permanent",
			faults:  []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 422, Message: `Unexpected inputs provided: ["poll_lock"]`}},
			wantErr: "does not declare the nine fullsend inputs",
			calls:   1,
		},
		{
			name:       "server errors are retried with backoff",
			faults:     []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 502, Times: 2}},
			calls:      3,
			runs:       1,
			wantSleeps: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
		},
		{
			name:       "backoff is capped",
			faults:     []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 503, Times: 4}},
			calls:      5,
			runs:       1,
			wantSleeps: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 25 * time.Millisecond, 25 * time.Millisecond},
		},
		{
			name:       "secondary rate limit honours Retry-After",
			faults:     []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 403, RetryAfter: 7, Secondary: true}},
			calls:      2,
			runs:       1,
			wantSleeps: []time.Duration{7 * time.Second},
		},
		{
			name:       "429 with Retry-After is retried",
			faults:     []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 429, RetryAfter: 3}},
			calls:      2,
			runs:       1,
			wantSleeps: []time.Duration{3 * time.Second},
		},
		{
			name:   "exhausted rate limit waits for the reset",
			faults: []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 403, RateLimited: true, ResetIn: 20 * time.Second}},
			calls:  2,
			runs:   1,
		},
		{
			name:    "Retry-After beyond the cap gives up",
			faults:  []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 429, RetryAfter: 3600}},
			wantErr: "try again later",
			calls:   1,
		},
		{
			name:       "persistent server errors fail after the retries",
			faults:     []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 500, Times: 10}},
			mod:        func(o *Options) { o.MaxRetries = 2 },
			wantErr:    "a server error can follow a dispatch GitHub acted on",
			calls:      3,
			wantSleeps: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
		},
		{
			name:      "dropped connection after dispatch is ambiguous and not retried",
			faults:    []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Drop: true, After: true}},
			wantErr:   "the run MAY have started",
			ambiguous: true,
			calls:     1,
			runs:      1,
		},
		{
			name:      "timeout after the request was sent is ambiguous",
			faults:    []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Delay: 2 * time.Second, After: true}},
			mod:       shortTimeout(150 * time.Millisecond),
			wantErr:   "not retried to avoid a double run",
			ambiguous: true,
			calls:     1,
			runs:      1,
		},
		{
			name:       "unreachable API is retried, then reported as not started",
			mod:        func(o *Options) { o.APIURL = "http://127.0.0.1:1/"; o.MaxRetries = 1 },
			wantErr:    "could not connect to GitHub, so the run was not started",
			wantSleeps: []time.Duration{10 * time.Millisecond},
		},
		{
			name:    "bad token",
			mod:     func(o *Options) { o.Token = "ghs_wrongTokenValue" },
			wantErr: "set GITHUB_TOKEN or GH_TOKEN to a valid token",
			calls:   1,
		},
		{
			name:    "forbidden without rate limit means missing permission",
			faults:  []githubsim.Fault{{Endpoint: githubsim.EndpointDispatch, Status: 403, Message: "Resource not accessible by integration"}},
			wantErr: "needs the actions: write permission",
			calls:   1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, githubsim.Options{})
			for _, f := range tt.faults {
				e.sim.Inject(f)
			}
			d := e.driver(t, func(o *Options) {
				o.Ref = "main"
				o.BaseBackoff, o.MaxBackoff = 10*time.Millisecond, 25*time.Millisecond
				if tt.mod != nil {
					tt.mod(o)
				}
			})
			run := jiraRun(t)
			if tt.run != nil {
				run = tt.run(run)
			}
			res := d.Dispatch(context.Background(), []plan.Run{run})[0]
			if tt.wantErr == "" {
				if res.Err != nil || res.Ref == nil || res.Ref.ID == "" {
					t.Fatalf("want success with a run id, got ref %+v err %v", res.Ref, res.Err)
				}
			} else {
				if res.Err == nil || !strings.Contains(res.Err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", res.Err, tt.wantErr)
				}
				if res.Ref != nil {
					t.Errorf("failed dispatch returned a ref %+v", res.Ref)
				}
			}
			if got := errors.Is(res.Err, ErrAmbiguous); got != tt.ambiguous {
				t.Errorf("ambiguous = %v, want %v (%v)", got, tt.ambiguous, res.Err)
			}
			if got := e.sim.Calls(githubsim.EndpointDispatch); got != tt.calls {
				t.Errorf("dispatch calls = %d, want %d", got, tt.calls)
			}
			if got := len(e.sim.Runs()); got != tt.runs {
				t.Errorf("runs started = %d, want %d", got, tt.runs)
			}
			if tt.wantSleeps != nil && !slices.Equal(e.sleeps.all(), tt.wantSleeps) {
				t.Errorf("waits = %v, want %v", e.sleeps.all(), tt.wantSleeps)
			}
			for _, secret := range []string{testToken, "ghs_wrongTokenValue"} {
				if strings.Contains(e.logs.String(), secret) || (res.Err != nil && strings.Contains(res.Err.Error(), secret)) {
					t.Error("a token leaked into logs or errors")
				}
			}
		})
	}
}

func TestRateLimitResetWait(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	e.sim.Inject(githubsim.Fault{Endpoint: githubsim.EndpointDispatch, Status: 429, RateLimited: true, ResetIn: 20 * time.Second})
	d := e.driver(t, func(o *Options) { o.Ref = "main" })
	if res := d.Dispatch(context.Background(), []plan.Run{jiraRun(t)}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	w := e.sleeps.all()
	if len(w) != 1 || w[0] < 15*time.Second || w[0] > 25*time.Second {
		t.Errorf("waits = %v, want one wait close to the 20s reset", w)
	}
}

func TestCancelOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		ref     func(id, url string) plan.Ref
		faults  []githubsim.Fault
		repo    string
		want    string
		wantErr string
		calls   int
	}{
		{name: "cancels", ref: func(id, u string) plan.Ref { return plan.Ref{Driver: Name, ID: id, URL: u} }, want: "cancelled run", calls: 1},
		{name: "repo from the run url", repo: "-", ref: func(id, u string) plan.Ref { return plan.Ref{Driver: Name, ID: id, URL: u} }, want: "cancelled run", calls: 1},
		{name: "retries server errors", faults: []githubsim.Fault{{Endpoint: githubsim.EndpointCancelRun, Status: 500}},
			ref: func(id, u string) plan.Ref { return plan.Ref{Driver: Name, ID: id} }, want: "cancelled run", calls: 2},
		{name: "unknown run", ref: func(string, string) plan.Ref { return plan.Ref{Driver: Name, ID: "999999"} }, wantErr: "not found in acme/platform", calls: 1},
		{name: "bad id", ref: func(string, string) plan.Ref { return plan.Ref{Driver: Name, ID: "12ab"} }, wantErr: "not a positive integer"},
		{name: "other driver", ref: func(id, _ string) plan.Ref { return plan.Ref{Driver: "gitlab-pipeline", ID: id} }, wantErr: "cannot cancel a gitlab-pipeline run"},
		{name: "forbidden", faults: []githubsim.Fault{{Endpoint: githubsim.EndpointCancelRun, Status: 403, Message: "Resource not accessible by integration"}},
			ref: func(id, _ string) plan.Ref { return plan.Ref{Driver: Name, ID: id} }, wantErr: "actions: write", calls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, githubsim.Options{})
			d := e.driver(t, func(o *Options) { o.Ref = "main"; o.BaseBackoff = time.Millisecond })
			res := d.Dispatch(context.Background(), []plan.Run{jiraRun(t)})[0]
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			for _, f := range tt.faults {
				e.sim.Inject(f)
			}
			if tt.repo == "-" {
				d.opts.Repo = ""
			}
			out, err := d.Cancel(context.Background(), tt.ref(res.Ref.ID, res.Ref.URL))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Cancel error = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil || !strings.Contains(out, tt.want) {
				t.Fatalf("Cancel = %q, %v; want %q", out, err, tt.want)
			}
			if got := e.sim.Calls(githubsim.EndpointCancelRun); got != tt.calls {
				t.Errorf("cancel calls = %d, want %d", got, tt.calls)
			}
		})
	}
}

func TestRepoFromRunURL(t *testing.T) {
	tests := map[string]string{
		"https://github.com/acme/platform/actions/runs/42":            "acme/platform",
		"https://ghe.example.com/acme/platform/actions/runs/42/":      "acme/platform",
		"https://ghe.example.com/prefix/acme/platform/actions/runs/1": "acme/platform",
		"https://github.com/acme/platform/actions/runs":               "",
		"https://github.com/acme/platform":                            "",
		"":                                                            "",
		"::not a url":                                                 "",
	}
	for in, want := range tests {
		if got := repoFromRunURL(in); got != want {
			t.Errorf("repoFromRunURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzRepoFromRunURL(f *testing.F) {
	f.Add("https://github.com/acme/platform/actions/runs/42")
	f.Add("https://x/a/b/actions/runs/1/actions/runs/2")
	f.Add("%zz")
	f.Fuzz(func(t *testing.T, s string) {
		got := repoFromRunURL(s)
		if got == "" {
			return
		}
		if strings.Count(got, "/") != 1 || strings.HasPrefix(got, "/") || strings.HasSuffix(got, "/") {
			t.Fatalf("repoFromRunURL(%q) = %q: not owner/repo", s, got)
		}
	})
}
