package gitlabci

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/workflows/release"
)

// testPin is the release install the tests generate.
var testPin = release.Pin{Mode: release.Download, Version: "v1.2.3", BaseURL: release.DefaultBaseURL}

// digest is a well-formed image digest.
const digest = "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

var update = flag.Bool("update", false, "rewrite golden files")

func TestGenerateGolden(t *testing.T) {
	files, err := Generate(Options{Install: testPin})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := files[FileName]
	if !ok || len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	golden := filepath.Join("testdata", "golden", "gitlab-ci.yml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("generated %s differs from %s (run with -update after review)\n%s", FileName, golden, got)
	}
	rep, err := Inspect(FileName, got)
	if err != nil || len(rep.Findings) != 0 || rep.Jobs != 3 || rep.AgentJobs != 1 || rep.DispatchJobs != 1 {
		t.Fatalf("generated file: %+v, %v", rep, err)
	}
}

// TestGeneratedNamesMatchDriver keeps the generated names and the driver's
// lookups in step.
func TestGeneratedNamesMatchDriver(t *testing.T) {
	rk := "$FULLSEND_RESOURCE_KEY"
	if glapi.PipelineName(rk) != PipelineName || glapi.GroupKey(rk) != ResourceGroup {
		t.Fatalf("driver names %q %q, generator %q %q", glapi.PipelineName(rk), glapi.GroupKey(rk), PipelineName, ResourceGroup)
	}
	files, _ := Generate(Options{Install: testPin})
	for _, want := range []string{"name: \"" + PipelineName + "\"", "resource_group: " + ResourceGroup,
		"$" + glapi.VarAgent, "on_new_commit: none", "interruptible: false"} {
		if !strings.Contains(string(files[FileName]), want) {
			t.Errorf("generated file lacks %q", want)
		}
	}
}

func TestGenerateOptions(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		want    string
		wantErr string
	}{
		{"image and timeouts", Options{Install: testPin, Image: "registry.example.com/go" + digest, TimeoutMinutes: 90, PollTimeoutMinutes: 5},
			"image: registry.example.com/go" + digest, ""},
		{"timeout", Options{Install: testPin, TimeoutMinutes: 90}, "timeout: 90m", ""},
		{"default image by digest", Options{Install: testPin}, "image: " + DefaultImage, ""},
		{"release install verifies", Options{Install: testPin}, "FULLSEND_RELEASE_URL: \"" + release.DefaultBaseURL + "\"", ""},
		{"unpinned image refused", Options{Install: testPin, Image: "alpine:3.22"}, "", "not pinned by digest"},
		{"unpinned image allowed explicitly", Options{Install: testPin, Image: "alpine:3.22", AllowUnpinnedImage: true}, "image: alpine:3.22", ""},
		{"source needs a pinned image", Options{Install: release.Pin{Mode: release.Source, Version: "0123abcd0123abcd0123abcd0123abcd0123abcd"}}, "", "not pinned by digest"},
		{"source with the Go image", Options{Install: release.Pin{Mode: release.Source, Version: "0123abcd0123abcd0123abcd0123abcd0123abcd"}, AllowUnpinnedImage: true},
			`go install "github.com/fullsend-dev/fullsend/cmd/fullsend@${FULLSEND_VERSION}"`, ""},
		{"agent token", Options{Install: testPin, AgentToken: true}, "name: " + AgentEnvironment, ""},
		{"dispatch pins the install and the API", Options{Install: testPin},
			`export FULLSEND_VERSION="v1.2.3" FULLSEND_RELEASE_URL="` + release.DefaultBaseURL + `" GITLAB_API_URL="$CI_API_V4_URL"`, ""},
		{"dispatch pins the source build", Options{Install: release.Pin{Mode: release.Source, Version: "0123abcd0123abcd0123abcd0123abcd0123abcd"}, AllowUnpinnedImage: true},
			"unset GOFLAGS GONOSUMDB GONOSUMCHECK GOPRIVATE GOINSECURE", ""},
		{"no version", Options{}, "", "--install"},
		{"shell in version", Options{Install: release.Pin{Mode: release.Source, Version: "v1; rm -rf /"}}, "", "--version"},
		{"bad image", Options{Install: testPin, Image: "a b"}, "", "image"},
		{"bad ref", Options{Install: testPin, Ref: "$(x)"}, "", "ref"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Generate(tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(string(files[FileName]), tc.want) {
				t.Fatalf("err %v; output lacks %q", err, tc.want)
			}
			if f, err := Check(FileName, files[FileName]); err != nil || len(f) != 0 {
				t.Fatalf("generated file fails check: %v %v", f, err)
			}
		})
	}
}

func TestCheckBrokenVariants(t *testing.T) {
	tests := []struct {
		file string
		want []string // "line: message fragment"
	}{
		{"no-resource-group.yml", []string{"5: without a resource_group"}},
		{"unkeyed-resource-group.yml", []string{"6: is not keyed by scope"}},
		{"interruptible.yml", []string{"7: interruptible: true"}},
		{"interruptible-from-default.yml", []string{"2: interruptible: true"}},
		{"interruptible-yes.yml", []string{"7: interruptible: true", "12: interruptible: true"}},
		{"auto-cancel-conservative.yml", []string{`4: on_new_commit is "conservative"`}},
		{"no-auto-cancel.yml", []string{"1: workflow has no auto_cancel"}},
		{"no-workflow.yml", []string{"1: no workflow section"}},
		{"wrong-name.yml", []string{`2: workflow:name "agent run $FULLSEND_AGENT" must be`}},
		{"extends-inherits.yml", []string{"1: workflow has no name", "6: interruptible: true"}},
		{"interruptible-in-rules.yml", []string{"10: a rule sets interruptible: On"}},
		{"interruptible-in-inherited-rules.yml", []string{`8: a rule sets interruptible: yes`, "9: a rule sets interruptible: YES"}},
		{"auto-cancel-in-rules.yml", []string{`8: workflow:rules sets auto_cancel:on_new_commit "interruptible"`}},
		{"dispatch-every-source.yml", []string{`5: job "dispatch" runs ` + "`fullsend dispatch`" + ` on every pipeline source`}},
		{"dispatch-wide-rules.yml", []string{"9: this rule runs `fullsend dispatch` outside trigger pipelines", "10: outside trigger pipelines"}},
		{"no-exec.yml", []string{"11: runs `fullsend run` from a shell that stays alive"}},
		{"wrong-group-prefix.yml", []string{`6: resource_group "agents-$FULLSEND_RESOURCE_KEY" is not the group the gitlab-pipeline output looks up`}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "broken", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Check(path, data)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("findings %v, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				line, frag, _ := strings.Cut(w, ": ")
				s := got[i].String()
				if !strings.HasPrefix(s, path+":"+line+": ") || !strings.Contains(s, frag) {
					t.Errorf("finding %q, want %s:%s containing %q", s, path, line, frag)
				}
			}
		})
	}
}

func TestCheckIgnoresUnrelatedAndRejectsBadYAML(t *testing.T) {
	tests := []struct {
		name, data string
		jobs       int
		wantErr    string
	}{
		{"no fullsend job", "build:\n  script: [make]\ntest:\n  interruptible: true\n  script: [fullsend runner-check, fullsend-run]\n", 2, ""},
		{"empty", "", 0, ""},
		{"hidden only", ".tmpl:\n  script: [fullsend run]\n", 0, ""},
		{"not a mapping", "- a\n- b\n", 0, "top level"},
		{"bad yaml", "a: [\n", 0, "x.yml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Inspect("x.yml", []byte(tc.data))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(rep.Findings) != 0 || rep.Jobs != tc.jobs {
				t.Fatalf("report %+v, err %v", rep, err)
			}
		})
	}
}

func FuzzCheck(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*", "*.yml"))
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b)
	}
	f.Add([]byte("a:\n  extends: a\n  script: fullsend run\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := Check("f.yml", data)
		if err != nil {
			return
		}
		for _, x := range fs {
			if x.Line < 1 || x.File != "f.yml" || x.Message == "" {
				t.Fatalf("bad finding %+v", x)
			}
		}
	})
}

// TestGeneratedJobSources pins which pipeline source runs which job: the
// dispatch job only trigger pipelines carrying a webhook, the poll and
// agent jobs never those.
func TestGeneratedJobSources(t *testing.T) {
	for name, o := range schemaVariants {
		files, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]yaml.Node
		if err := yaml.Unmarshal(files[FileName], &doc); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"fullsend-dispatch": TriggerRule,
			"fullsend-poll":     `$CI_PIPELINE_SOURCE == "schedule"`,
			"fullsend-agent":    `$CI_PIPELINE_SOURCE == "api" && $FULLSEND_AGENT`,
		}
		for job, rule := range want {
			var j struct {
				Rules []struct {
					If string `yaml:"if"`
				} `yaml:"rules"`
			}
			n := doc[job]
			if err := n.Decode(&j); err != nil {
				t.Fatal(err)
			}
			rs := j.Rules
			if len(rs) != 1 || rs[0].If != rule {
				t.Errorf("%s: %s rules %+v, want only %q", name, job, rs, rule)
			}
		}
	}
}
