// Package drivername is the registry of input and output driver names and of
// what each driver can do. Configuration, the command line, the runner and
// the driver packages use its constants and capabilities instead of
// spelling driver names; the constructors live in each driver's package
// (FromConfig). It imports nothing from the project.
package drivername

import "slices"

// Input driver names.
const (
	JiraPoll    = "jira-poll"    // polls Jira issues (poll.input_drivers)
	GitLabPoll  = "gitlab-poll"  // reconciles a GitLab project's recent activity (poll.input_drivers)
	GitHubPoll  = "github-poll"  // reconciles a GitHub repository's recent activity (poll.input_drivers)
	JSONIn      = "json"         // one NormalizedEvent document (dispatch)
	GHAEvent    = "gha-event"    // one GitHub Actions event (dispatch)
	GitLabEvent = "gitlab-event" // one GitLab webhook body, re-verified through the API (dispatch)
)

// Output driver names.
const (
	JSON           = "json"            // prints the plan as a JSON array
	GHAMatrix      = "gha-matrix"      // prints the plan as a GitHub Actions matrix
	GHADispatch    = "gha-dispatch"    // starts workflow_dispatch runs
	GitLabPipeline = "gitlab-pipeline" // starts GitLab pipelines
	Local          = "local"           // runs agents in this process
)

// Input describes one input driver.
type Input struct {
	Name string
	// Polls: the driver runs in `fullsend poll` cycles (poll.input_drivers)
	// and holds poll locks; otherwise it reads one event for `dispatch`.
	Polls bool
	// NoLocks: a polling driver that takes no poll locks (gitlab-poll and
	// github-poll coordinate through the pipelines and runs they dispatch).
	NoLocks bool
}

// Output describes one output driver.
type Output struct {
	Name string
	// PrintsPlan: the driver writes the planned runs to stdout instead of
	// starting them; a run started from its plan holds no driver run id.
	PrintsPlan bool
	// Dispatches: the driver starts runs on a CI platform.
	Dispatches bool
	// RunIDs: the driver returns an id for each run it starts.
	RunIDs bool
	// Cancels: the driver can cancel runs it started (`poll cancel`).
	Cancels bool
	// CoalescesNatively: the platform itself keeps one pending run per
	// scope, the newest (GitHub concurrency groups); otherwise fullsend
	// coalesces (GitLab: cancels superseded pipelines; local: its queue).
	CoalescesNatively bool
	// InProcess: the driver runs the agents in this process.
	InProcess bool
}

// OneShotBreaker reports whether the per-scope hourly circuit breaker
// applies to a one-shot `fullsend dispatch` with this driver. Its count
// lives in memory, so it means something only when the process outlives
// the runs it starts (in-process drivers); a poller always applies it.
func (o Output) OneShotBreaker() bool { return o.InProcess }

var inputs = []Input{
	{Name: JiraPoll, Polls: true},
	{Name: GitLabPoll, Polls: true, NoLocks: true},
	{Name: GitHubPoll, Polls: true, NoLocks: true},
	{Name: JSONIn},
	{Name: GHAEvent},
	{Name: GitLabEvent},
}

// outputs is in documentation order.
var outputs = []Output{
	{Name: JSON, PrintsPlan: true},
	{Name: GHAMatrix, PrintsPlan: true},
	{Name: GHADispatch, Dispatches: true, RunIDs: true, Cancels: true, CoalescesNatively: true},
	{Name: GitLabPipeline, Dispatches: true, RunIDs: true, Cancels: true},
	{Name: Local, RunIDs: true, InProcess: true},
}

// LookupOutput returns the output driver called name.
func LookupOutput(name string) (Output, bool) {
	i := slices.IndexFunc(outputs, func(o Output) bool { return o.Name == name })
	if i < 0 {
		return Output{}, false
	}
	return outputs[i], true
}

// LookupInput returns the input driver called name.
func LookupInput(name string) (Input, bool) {
	i := slices.IndexFunc(inputs, func(in Input) bool { return in.Name == name })
	if i < 0 {
		return Input{}, false
	}
	return inputs[i], true
}

// OutputNames lists the output drivers in documentation order.
func OutputNames() []string {
	names := make([]string, len(outputs))
	for i, o := range outputs {
		names[i] = o.Name
	}
	return names
}

// DispatchInputNames lists the input drivers that read one event for
// `fullsend dispatch`.
func DispatchInputNames() []string {
	var names []string
	for _, in := range inputs {
		if !in.Polls {
			names = append(names, in.Name)
		}
	}
	return names
}

// PollInputNames lists the input drivers that run in poll cycles.
func PollInputNames() []string {
	var names []string
	for _, in := range inputs {
		if in.Polls {
			names = append(names, in.Name)
		}
	}
	return names
}

// PrintsPlan reports whether the output driver called name prints the plan
// (false for an unknown name).
func PrintsPlan(name string) bool {
	o, ok := LookupOutput(name)
	return ok && o.PrintsPlan
}
