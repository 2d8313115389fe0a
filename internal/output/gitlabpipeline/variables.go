package gitlabpipeline

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

// Pipeline variable names (docs/gitlab.md, "Pipeline variables"). `fullsend run` reads the
// same names in the agent job.
const (
	VarAgent            = "FULLSEND_AGENT"
	VarRole             = "FULLSEND_ROLE"
	VarSourceRepo       = "FULLSEND_SOURCE_REPO"
	VarEventType        = "FULLSEND_EVENT_TYPE"
	VarEvent            = "FULLSEND_EVENT" // base64 (standard) of the NormalizedEvent JSON
	VarSerializationKey = "FULLSEND_SERIALIZATION_KEY"
	VarResourceKey      = "FULLSEND_RESOURCE_KEY"
	VarWorkItemURL      = "FULLSEND_WORK_ITEM_URL"
	VarWorkItemSource   = "FULLSEND_WORK_ITEM_SOURCE"
	VarWorkItemKey      = "FULLSEND_WORK_ITEM_KEY"
	VarPollLockID       = "FULLSEND_POLL_LOCK_ID"
	VarPollLockDriver   = "FULLSEND_POLL_LOCK_DRIVER"
	VarPollLockProperty = "FULLSEND_POLL_LOCK_PROPERTY"
	VarIdempotencyKey   = "FULLSEND_IDEMPOTENCY_KEY" // plan.WorkItem.IdempotencyKey, empty outside polling
	// VarEntity is base64 (standard) of the NormalizedEntity JSON as the
	// normalized_entity input carries it (plan.Run.Inputs: cut to the
	// inputs' limit); set only on runs of entity-source harnesses.
	VarEntity = "FULLSEND_ENTITY"
)

// Naming of a scope's pipelines and resource group. The generated
// .gitlab-ci.yml sets `workflow:name: "fullsend:$FULLSEND_RESOURCE_KEY"` and
// `resource_group: fullsend-$FULLSEND_RESOURCE_KEY`; the driver finds a
// scope's pipelines by that exact name.
const (
	NamePrefix  = "fullsend:"
	GroupPrefix = "fullsend-"
	// maxResourceKey keeps GroupPrefix+key within GitLab's 255-character
	// limit on resource group keys.
	maxResourceKey = 255 - len(GroupPrefix)
)

// ResourceKey is the value of FULLSEND_RESOURCE_KEY for scope key k:
// scope.ResourceName(k) with every '.' written as "_2E" (GitLab's
// resource-group API answers 404 for a key with a dot in the URL path, so
// keys hold only [A-Za-z0-9_-]), shortened with a hash suffix when it would
// make a resource group key longer than 255 characters. Distinct scope keys
// give distinct resource keys in practice.
func ResourceKey(k scope.Key) string {
	rn := strings.ReplaceAll(scope.ResourceName(k), ".", "_2E")
	if len(rn) <= maxResourceKey {
		return rn
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(k))
	sum := strconv.FormatUint(h.Sum64(), 16)
	return rn[:maxResourceKey-len(sum)-1] + "-" + sum
}

// PipelineName is the pipeline name of a scope's pipelines.
func PipelineName(resourceKey string) string { return NamePrefix + resourceKey }

// GroupKey is the resource group key of a scope's agent jobs.
func GroupKey(resourceKey string) string { return GroupPrefix + resourceKey }

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
		{VarAgent, run.Harness},
		{VarRole, run.Role},
		{VarSourceRepo, repo},
		{VarEventType, kind},
		{VarEvent, base64.StdEncoding.EncodeToString(ev)},
		{VarSerializationKey, string(run.Key)},
		{VarResourceKey, ResourceKey(run.Key)},
		{VarWorkItemURL, run.WorkItem.URL},
		{VarWorkItemSource, run.WorkItem.Source},
		{VarWorkItemKey, run.WorkItem.Key},
		{VarPollLockID, lock.ID},
		{VarPollLockDriver, lock.Driver},
		{VarPollLockProperty, lock.Property},
		{VarIdempotencyKey, run.WorkItem.IdempotencyKey},
	}
	if run.Entity != nil && run.Event != nil {
		vars = append(vars, [2]string{VarEntity, base64.StdEncoding.EncodeToString([]byte(run.Inputs()[plan.InNormalizedEntity]))})
	}
	return vars
}
