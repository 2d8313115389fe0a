package ghadispatch

import (
	"context"
	"reflect"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/entity/entitytest"
)

// A run of an entity-source harness sends its entity as the tenth input.
func TestDispatchCarriesTheEntity(t *testing.T) {
	e := newEnv(t, githubsim.Options{})
	d := e.driver(t, nil)
	run := jiraRun(t)
	run.Entity = entitytest.WorkItem(t)
	if res := d.Dispatch(context.Background(), []plan.Run{run}); len(res) != 1 || res[0].Err != nil {
		t.Fatalf("Dispatch = %+v", res)
	}
	runs := e.sim.Runs()
	if len(runs) != 1 || len(runs[0].Inputs) != len(plan.Names) {
		t.Fatalf("runs %+v", runs)
	}
	got, err := entity.Decode([]byte(runs[0].Inputs[plan.InNormalizedEntity]))
	if err != nil || !reflect.DeepEqual(got, run.Entity) {
		t.Fatalf("normalized_entity = %s (%v)", runs[0].Inputs[plan.InNormalizedEntity], err)
	}
}
