package outputs

import (
	"bytes"
	"context"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/output"
)

func TestNew(t *testing.T) {
	cfg := config.Default()
	cfg.Repo, cfg.Dir = "acme/platform", t.TempDir()
	var stdout bytes.Buffer
	env := output.Env{Getenv: func(string) string { return "" }, Stdout: &stdout}
	cases := []struct {
		name    string
		invalid bool // the user's error
	}{
		{drivername.JSON, false},
		{drivername.GHAMatrix, false},
		{drivername.Local, false},
		{drivername.GHADispatch, true},    // no token in the environment
		{drivername.GitLabPipeline, true}, // no token in the environment
		{"carrier-pigeon", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.name, cfg, env)
			if tc.invalid {
				if err == nil || !config.IsInvalid(err) || d != nil {
					t.Fatalf("New = %v, %v; want the user's error", d, err)
				}
				return
			}
			if err != nil || d.Name() != tc.name {
				t.Fatalf("New = %v, %v", d, err)
			}
			if err := Close(context.Background(), d); err != nil {
				t.Fatal(err)
			}
			if err := Check(tc.name); err != nil {
				t.Fatal(err)
			}
		})
	}
	if err := Check("carrier-pigeon"); !config.IsInvalid(err) {
		t.Errorf("Check = %v", err)
	}
}
