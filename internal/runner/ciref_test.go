package runner

import (
	"testing"

	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/output/gitlabpipeline"
	"github.com/fullsend-dev/fullsend/internal/output/local"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// The CI run must name the output driver that started it, so that the
// entry the poller recorded at dispatch is the one updated and released.
func TestCIRunDriverNamesMatchOutputDrivers(t *testing.T) {
	for env, want := range map[string]string{"GITHUB_RUN_ID": ghadispatch.Name, "CI_PIPELINE_ID": gitlabpipeline.Name,
		LocalRunIDEnv: local.DriverName} {
		if got := CIRun(envOf(map[string]string{env: "1"}), 1); got.Driver != want || got.ID != "1" {
			t.Errorf("%s=1: %+v, want driver %s id 1", env, got, want)
		}
	}
	if LocalRunIDEnv != local.RunIDEnv {
		t.Errorf("fullsend run reads %s, the local driver sets %s", LocalRunIDEnv, local.RunIDEnv)
	}
}

func TestCIRun(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want plan.Ref
	}{
		{"github", map[string]string{"GITHUB_RUN_ID": "99", "GITHUB_SERVER_URL": "https://ghe.example/", "GITHUB_REPOSITORY": "acme/platform"},
			plan.Ref{Driver: "gha-dispatch", ID: "99", URL: "https://ghe.example/acme/platform/actions/runs/99"}},
		{"github default server", map[string]string{"GITHUB_RUN_ID": "5", "GITHUB_REPOSITORY": "a/b"},
			plan.Ref{Driver: "gha-dispatch", ID: "5", URL: "https://github.com/a/b/actions/runs/5"}},
		{"github without repo", map[string]string{"GITHUB_RUN_ID": "5"}, plan.Ref{Driver: "gha-dispatch", ID: "5"}},
		{"gitlab", map[string]string{"CI_PIPELINE_ID": "12", "CI_PIPELINE_URL": "https://gitlab.example/g/p/-/pipelines/12"},
			plan.Ref{Driver: "gitlab-pipeline", ID: "12", URL: "https://gitlab.example/g/p/-/pipelines/12"}},
		{"local", nil, plan.Ref{Driver: "local", ID: "local-4321"}},
		{"local output driver child", map[string]string{LocalRunIDEnv: "17"}, plan.Ref{Driver: "local", ID: "17"}},
		{"local output driver child inside CI", map[string]string{LocalRunIDEnv: "17", "GITHUB_RUN_ID": "99", "CI_PIPELINE_ID": "12"},
			plan.Ref{Driver: "local", ID: "17"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CIRun(envOf(tc.env), 4321); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
