package gitlabpipeline

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/httpx"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

func TestNewValidates(t *testing.T) {
	ok := Options{APIURL: "https://gitlab.example.com", Token: "t", Project: "g/s/p", Ref: "main"}
	tests := []struct {
		name    string
		mod     func(*Options)
		wantErr string
	}{
		{"valid", func(*Options) {}, ""},
		{"no url", func(o *Options) { o.APIURL = "" }, "GITLAB_API_URL"},
		{"plain http remote", func(o *Options) { o.APIURL = "http://gitlab.example.com" }, "loopback"},
		{"no token", func(o *Options) { o.Token = "" }, "GITLAB_TOKEN"},
		{"no project", func(o *Options) { o.Project = " / " }, "no project"},
		{"dotdot project", func(o *Options) { o.Project = "a/../b" }, ".."},
		{"no ref", func(o *Options) { o.Ref = "" }, "no ref"},
		{"bad mode", func(o *Options) { o.ProcessMode = "oldest" }, "process mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.mod(&o)
			d, err := New(o)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if d.o.APIURL != "https://gitlab.example.com/api/v4" || d.o.ProcessMode != ProcessModeNewestFirst {
					t.Errorf("defaults: %+v", d.o)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want ErrConfig containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{"CI_API_V4_URL": "https://ci/api/v4", "GITLAB_TOKEN": "tok", "CI_PROJECT_PATH": "g/p", "CI_DEFAULT_BRANCH": "trunk"}
	get := func(k string) string { return env[k] }
	o := FromEnv(Options{Project: "explicit/p"}, get)
	if o.APIURL != "https://ci/api/v4" || o.Token != "tok" || o.Project != "explicit/p" || o.Ref != "trunk" {
		t.Fatalf("FromEnv = %+v", o)
	}
	env["GITLAB_API_URL"] = "https://gl/api/v4"
	if o := FromEnv(Options{}, get); o.APIURL != "https://gl/api/v4" || o.Project != "g/p" {
		t.Fatalf("GITLAB_API_URL must win over CI_API_V4_URL: %+v", o)
	}
}

func TestResourceKey(t *testing.T) {
	short := scope.Key("triage:acme/platform:jira:work_item:10042")
	if got := ResourceKey(short); got != scope.ResourceName(short) {
		t.Errorf("short key changed: %q", got)
	}
	long1 := scope.Key("h:" + strings.Repeat("a/", 130) + "x:github:work_item:1")
	long2 := scope.Key("h:" + strings.Repeat("a/", 130) + "x:github:work_item:2")
	r1, r2 := ResourceKey(long1), ResourceKey(long2)
	if len(GroupKey(r1)) > 255 || len(GroupKey(r2)) > 255 || r1 == r2 {
		t.Errorf("long keys: %d %d bytes, equal=%v", len(GroupKey(r1)), len(GroupKey(r2)), r1 == r2)
	}
}

func TestCancel(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{Projects: []string{testProject, "other/group/proj"}})
	d := e.driver(t)
	running := dispatch1(t, d, mkRun("triage", 1, "a"))
	done := dispatch1(t, d, mkRun("triage", 2, "b"))
	p, _ := e.sim.Pipeline(done)
	if err := e.sim.FinishJob(p.JobID, gitlabsim.StatusSuccess); err != nil {
		t.Fatal(err)
	}
	other, _ := e.sim.CreatePipeline("other/group/proj", "main", map[string]string{VarResourceKey: "k"})
	web := strings.TrimSuffix(e.opts.APIURL, "/api/v4")
	tests := []struct {
		name    string
		ref     plan.Ref
		want    string
		wantErr string
	}{
		{"running", plan.Ref{Driver: Name, ID: itoa(running)}, "cancelled", ""},
		{"again", plan.Ref{Driver: Name, ID: itoa(running)}, "already canceled", ""},
		{"finished", plan.Ref{Driver: Name, ID: itoa(done)}, "already success", ""},
		{"project from url", plan.Ref{Driver: Name, ID: itoa(other.ID), URL: web + "/other/group/proj/-/pipelines/" + itoa(other.ID)}, "cancelled", ""},
		{"wrong driver", plan.Ref{Driver: "gha-dispatch", ID: "1"}, "", "cannot cancel"},
		{"bad id", plan.Ref{Driver: Name, ID: "x"}, "", "not a pipeline id"},
		{"unknown", plan.Ref{Driver: Name, ID: "999"}, "", "404"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := d.Cancel(context.Background(), tc.ref)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(got, tc.want) {
				t.Fatalf("Cancel = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if p, _ := e.sim.Pipeline(other.ID); p.Status != gitlabsim.StatusCanceled {
		t.Errorf("pipeline in the project named by the URL is %s", p.Status)
	}
}

func TestCheckSuperseded(t *testing.T) {
	e := newEnv(t, gitlabsim.Options{})
	d := e.driver(t)
	run := mkRun("triage", 4, "a")
	a := dispatch1(t, d, run)
	envv := map[string]string{"CI_API_V4_URL": e.opts.APIURL, "GITLAB_TOKEN": e.opts.Token, "CI_PROJECT_ID": "1",
		"CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_ID": itoa(a), VarResourceKey: ResourceKey(run.Key)}
	get := func(k string) string { return envv[k] }
	o := Options{Transport: e.opts.Transport, RateLimiter: e.opts.RateLimiter}
	if sup, _, err := CheckSuperseded(context.Background(), get, o); sup || err != nil {
		t.Fatalf("alone: superseded=%v err=%v", sup, err)
	}
	b := dispatch1(t, d, mkRun("triage", 4, "b"))
	sup, msg, err := CheckSuperseded(context.Background(), get, o)
	if !sup || err != nil || !strings.Contains(msg, itoa(b)) {
		t.Fatalf("with newer %d: %v %q %v", b, sup, msg, err)
	}
	delete(envv, "CI_PIPELINE_ID")
	if sup, _, err := CheckSuperseded(context.Background(), get, o); sup || err != nil {
		t.Fatalf("outside GitLab CI: %v %v", sup, err)
	}
	envv["CI_PIPELINE_ID"] = "abc"
	if _, _, err := CheckSuperseded(context.Background(), get, o); err == nil {
		t.Fatal("bad CI_PIPELINE_ID accepted")
	}
}

func TestRetryPolicy(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	p := retryPolicy{now: func() time.Time { return now }}
	resp := func(code int, h ...string) *http.Response {
		r := &http.Response{StatusCode: code, Header: http.Header{}}
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		return r
	}
	read, write := context.Background(), writeCtx(context.Background())
	dial := &net.OpError{Op: "dial", Err: errors.New("connection refused")}
	reset := &net.OpError{Op: "read", Err: errors.New("connection reset")}
	tests := []struct {
		name string
		ctx  context.Context
		resp *http.Response
		err  error
		want bool
		wait time.Duration // the wait before the retry, when positive
	}{
		{"read 503", read, resp(503), nil, true, 0},
		{"write 503", write, resp(503), nil, false, 0},
		{"write 429 retry-after", write, resp(429, "Retry-After", "7"), nil, true, 7 * time.Second},
		{"429 reset header", read, resp(429, "RateLimit-Reset", "1700000005"), nil, true, 5 * time.Second},
		{"429 too long", read, resp(429, "Retry-After", "3600"), nil, false, 0},
		{"read 404", read, resp(404), nil, false, 0},
		{"read 501", read, resp(501), nil, false, 0},
		{"read reset connection", read, nil, reset, true, 0},
		{"write reset connection", write, nil, reset, false, 0},
		{"write never connected", write, nil, dial, true, 0},
	}
	for _, tc := range tests {
		req := httptest.NewRequest("GET", "/", nil).WithContext(tc.ctx)
		var waits []time.Duration
		pol := httpx.Retry{MaxAttempts: 2, BaseBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxServerWait: time.Minute,
			Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
		res, _ := pol.Do(tc.ctx, func(_ context.Context, n int) (httpx.Outcome, error) {
			if n > 1 {
				return httpx.Outcome{}, nil
			}
			return p.classify(req, tc.resp, tc.err, true), errors.New("failed")
		})
		if got := res.Attempts == 2; got != tc.want {
			t.Errorf("%s: retry = %v, want %v", tc.name, got, tc.want)
		}
		if tc.wait > 0 && (len(waits) != 1 || waits[0] != tc.wait) {
			t.Errorf("%s: waits = %v, want %v", tc.name, waits, tc.wait)
		}
	}
}

func TestProjectFromURL(t *testing.T) {
	api := "https://gl.example.com/gitlab/api/v4"
	tests := []struct{ in, want string }{
		{"https://gl.example.com/gitlab/a/b/c/-/pipelines/12", "a/b/c"},
		{"https://gl.example.com/gitlab/a/-/pipelines/12", "a"},
		{"https://other.example.com/gitlab/a/b/-/pipelines/12", "def"},
		{"https://gl.example.com/gitlab/-/pipelines/12", "def"},
		{"", "def"},
	}
	for _, tc := range tests {
		if got := projectFromURL(tc.in, api, "def"); got != tc.want {
			t.Errorf("projectFromURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzProjectFromURL(f *testing.F) {
	for _, s := range []string{"https://h/a/b/-/pipelines/1", "https://h/-/pipelines/", "x", "https://h/api/v4/a/-/pipelines/-/pipelines/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := projectFromURL(raw, "https://h/api/v4", "def")
		if got == "" || (got != "def" && !strings.Contains(raw, got)) {
			t.Fatalf("projectFromURL(%q) = %q", raw, got)
		}
	})
}

func FuzzServerWait(f *testing.F) {
	for _, s := range []string{"", "0", "5", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "99999999999999999999"} {
		f.Add(s, s)
	}
	p := retryPolicy{now: time.Now}
	f.Fuzz(func(t *testing.T, after, reset string) {
		r := &http.Response{StatusCode: 429, Header: http.Header{}}
		r.Header.Set("Retry-After", after)
		r.Header.Set("RateLimit-Reset", reset)
		if d, ok := p.serverWait(r); ok && d < 0 {
			t.Fatalf("negative wait %v for %q/%q", d, after, reset)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
