package resolvers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/entity"
)

type fakeResolver struct{}

func (*fakeResolver) Resolve(context.Context, entity.Ref) (*entity.Entity, error) {
	return nil, entity.ErrNotFound
}

func fakeFromEnv(_ *config.Config, getenv func(string) string) (*fakeResolver, error) {
	if getenv("FAKE_TOKEN") == "" {
		return nil, errors.New("FAKE_TOKEN is not set")
	}
	return &fakeResolver{}, nil
}

func TestNew(t *testing.T) {
	saved := builders
	t.Cleanup(func() { builders = saved })
	builders = map[string]Builder{
		entity.SystemJira:   Of(fakeFromEnv),
		entity.SystemGitLab: Of(fakeFromEnv),
	}
	getenv := func(k string) string { return map[string]string{"FAKE_TOKEN": "x"}[k] }
	if r, err := New(entity.SystemJira, &config.Config{}, getenv); err != nil || r == nil {
		t.Fatalf("jira: %v %v", r, err)
	}
	_, err := New(entity.SystemGitHub, &config.Config{}, getenv)
	if !errors.Is(err, ErrNoResolver) || !strings.Contains(err.Error(), `system "github"`) || !strings.Contains(err.Error(), "gitlab, jira") {
		t.Fatalf("github: %v", err)
	}
	// A failed build is an error and no resolver (not a typed nil).
	r, err := New(entity.SystemGitLab, &config.Config{}, func(string) string { return "" })
	if r != nil || err == nil || !strings.Contains(err.Error(), "gitlab entity resolver: FAKE_TOKEN is not set") {
		t.Fatalf("gitlab: %v %v", r, err)
	}
}

func TestNewWithoutBuilders(t *testing.T) {
	saved := builders
	t.Cleanup(func() { builders = saved })
	builders = map[string]Builder{}
	if _, err := New(entity.SystemJira, &config.Config{}, nil); !errors.Is(err, ErrNoResolver) || !strings.Contains(err.Error(), "none") {
		t.Fatalf("err %v", err)
	}
}

// TestEverySystemHasABuilder: each system an entity may come from has its
// resolver registered.
func TestEverySystemHasABuilder(t *testing.T) {
	for _, s := range entity.Systems() {
		if builders[s] == nil {
			t.Errorf("no resolver builder for %q", s)
		}
	}
}
