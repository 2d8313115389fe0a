package gitlab

import (
	"hash/fnv"
	"strconv"
	"strings"

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
