package local

import (
	"reflect"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/runner"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/entitytest"
)

// The child `fullsend run` of a run with an entity gets it as
// FULLSEND_NORMALIZED_ENTITY; an inherited one never reaches it.
func TestChildEnvCarriesTheEntity(t *testing.T) {
	parent := []string{"PATH=/bin", runner.EnvNormalizedEntity + "=stale", runner.EnvEntityBase64 + "=stale"}
	find := func(env []string, k string) []string {
		var out []string
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				out = append(out, v)
			}
		}
		return out
	}
	run := mkRun("ok", 1, "x")
	env := childEnv(parent, Job{Seq: 1, Run: run})
	if got := append(find(env, runner.EnvNormalizedEntity), find(env, runner.EnvEntityBase64)...); len(got) != 0 {
		t.Fatalf("an event-only run's child has an entity: %v", got)
	}
	run.Entity = entitytest.WorkItem(t)
	got := find(childEnv(parent, Job{Seq: 1, Run: run}), runner.EnvNormalizedEntity)
	if len(got) != 1 {
		t.Fatalf("entity variables %v", got)
	}
	if en, err := entity.Decode([]byte(got[0])); err != nil || !reflect.DeepEqual(en, run.Entity) {
		t.Fatalf("the child's entity %v (%v)", en, err)
	}
}
