package gitlabpipeline

import (
	"encoding/base64"
	"encoding/json"

	glapi "github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// Variables returns the pipeline variables of run, in a stable order.
// Poll-lock variables are empty strings outside polling; FULLSEND_ENTITY
// is there only for a run with an entity.
func Variables(run plan.Run) [][2]string {
	ev, _ := json.Marshal(run.Event)
	var lock plan.PollLock
	if run.PollLock != nil {
		lock = *run.PollLock
	}
	repo, kind := "", ""
	if run.Event != nil {
		repo, kind = run.Event.Repo, run.Event.Transition.Kind
	}
	vars := [][2]string{
		{glapi.VarAgent, run.Harness},
		{glapi.VarRole, run.Role},
		{glapi.VarSourceRepo, repo},
		{glapi.VarEventType, kind},
		{glapi.VarEvent, base64.StdEncoding.EncodeToString(ev)},
		{glapi.VarSerializationKey, string(run.Key)},
		{glapi.VarResourceKey, glapi.ResourceKey(run.Key)},
		{glapi.VarWorkItemURL, run.WorkItem.URL},
		{glapi.VarWorkItemSource, run.WorkItem.Source},
		{glapi.VarWorkItemKey, run.WorkItem.Key},
		{glapi.VarPollLockID, lock.ID},
		{glapi.VarPollLockDriver, lock.Driver},
		{glapi.VarPollLockProperty, lock.Property},
		{glapi.VarIdempotencyKey, run.WorkItem.IdempotencyKey},
	}
	if run.Entity != nil && run.Event != nil {
		vars = append(vars, [2]string{glapi.VarEntity, base64.StdEncoding.EncodeToString([]byte(run.Inputs()[plan.InNormalizedEntity]))})
	}
	return vars
}
