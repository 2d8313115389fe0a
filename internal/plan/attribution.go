package plan

// Attribution is the audit record of a scheduled run (docs/entities.md,
// "Attribution"): who invoked it, for which repository, under which
// policy and harness revision, on which entity version, and which
// retained action-indicating elements (and actors) its trigger saw. It
// travels inside the work_item input (WorkItem.Attribution), in the poll
// lock for the runner, which hands it to the agent as
// $FULLSEND_ATTRIBUTION, and in the cycle log.
type Attribution struct {
	// Invoker is the trusted origin that scheduled the run: the poller
	// ("jira-poll:<poller id>"); the clock schedules, it authorizes nothing.
	Invoker string `json:"invoker"`
	Repo    string `json:"repo"`
	// Policy is the effective policy: authorization.scheduled_discovery
	// and the harness's min_role.
	Policy  AttributionPolicy `json:"policy"`
	Harness string            `json:"harness"`
	// Revision is the harness file's revision (harness.Revision).
	Revision string `json:"harness_revision"`
	// Entity is the entity's identity (system:repo:kind:id) and Key its
	// Jira key, if any; Version the entity version the run is for.
	Entity  string `json:"entity"`
	Key     string `json:"key,omitempty"`
	Version string `json:"version"`
	Attempt int    `json:"attempt"`
	// Elements are the retained action-indicating elements, newest
	// first, at most MaxAttributedElements (ElementsTruncated when cut).
	Elements          []AttributedElement `json:"elements"`
	ElementsTruncated bool                `json:"elements_truncated,omitempty"`
}

// AttributionPolicy is the policy a scheduled run was decided under.
type AttributionPolicy struct {
	ScheduledDiscovery string `json:"scheduled_discovery"`
	MinRole            string `json:"min_role"`
}

// AttributedElement is one retained element: what it is and whose.
type AttributedElement struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Actor string `json:"actor"`
	Role  string `json:"role"`
}

// MaxAttributedElements bounds Attribution.Elements, so that the record
// stays a small part of the dispatch inputs' limit (MaxInputsSize).
const MaxAttributedElements = 20
