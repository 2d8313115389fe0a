package gitlabpipeline

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
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
	if got := glapi.ResourceKey(short); got != scope.ResourceName(short) {
		t.Errorf("short key changed: %q", got)
	}
	long1 := scope.Key("h:" + strings.Repeat("a/", 130) + "x:github:work_item:1")
	long2 := scope.Key("h:" + strings.Repeat("a/", 130) + "x:github:work_item:2")
	r1, r2 := glapi.ResourceKey(long1), glapi.ResourceKey(long2)
	if len(glapi.GroupKey(r1)) > 255 || len(glapi.GroupKey(r2)) > 255 || r1 == r2 {
		t.Errorf("long keys: %d %d bytes, equal=%v", len(glapi.GroupKey(r1)), len(glapi.GroupKey(r2)), r1 == r2)
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
	other, _ := e.sim.CreatePipeline("other/group/proj", "main", map[string]string{glapi.VarResourceKey: "k"})
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
		"CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_ID": itoa(a), glapi.VarResourceKey: glapi.ResourceKey(run.Key)}
	get := func(k string) string { return envv[k] }
	o := glapi.Options{Transport: e.opts.Transport, RateLimiter: e.opts.RateLimiter}
	if sup, _, err := glapi.CheckSuperseded(context.Background(), get, o); sup || err != nil {
		t.Fatalf("alone: superseded=%v err=%v", sup, err)
	}
	b := dispatch1(t, d, mkRun("triage", 4, "b"))
	sup, msg, err := glapi.CheckSuperseded(context.Background(), get, o)
	if !sup || err != nil || !strings.Contains(msg, itoa(b)) {
		t.Fatalf("with newer %d: %v %q %v", b, sup, msg, err)
	}
	delete(envv, "CI_PIPELINE_ID")
	if sup, _, err := glapi.CheckSuperseded(context.Background(), get, o); sup || err != nil {
		t.Fatalf("outside GitLab CI: %v %v", sup, err)
	}
	envv["CI_PIPELINE_ID"] = "abc"
	if _, _, err := glapi.CheckSuperseded(context.Background(), get, o); err == nil {
		t.Fatal("bad CI_PIPELINE_ID accepted")
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

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
