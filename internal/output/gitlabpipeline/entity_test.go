package gitlabpipeline

import (
	"encoding/base64"
	"reflect"

	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/entitytest"
	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
)

// FULLSEND_ENTITY carries the entity of a run of an entity-source harness
// (base64 of the normalized_entity input), and nothing else changes; an
// event-only run's variables have none.
func TestVariablesCarryTheEntity(t *testing.T) {
	run := mkRun("triage", 42, "hello")
	plain := Variables(run)
	run.Entity = entitytest.WorkItem(t)
	with := Variables(run)
	if len(with) != len(plain)+1 || !reflect.DeepEqual(with[:len(plain)], plain) || with[len(plain)][0] != glapi.VarEntity {
		t.Fatalf("variables %v", with)
	}
	for _, v := range plain {
		if v[0] == glapi.VarEntity {
			t.Fatalf("an event-only run has %s", glapi.VarEntity)
		}
	}
	raw, err := base64.StdEncoding.DecodeString(with[len(plain)][1])
	if err != nil {
		t.Fatal(err)
	}
	if got, err := entity.Decode(raw); err != nil || !reflect.DeepEqual(got, run.Entity) {
		t.Fatalf("FULLSEND_ENTITY decodes to %v (%v)", got, err)
	}
}
