package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/sim/githubsim"
)

// dispatched is one workflow run the emulated GitHub received.
type dispatched struct {
	run     githubsim.Run
	agent   string
	key     string // Jira issue key
	event   event.Event
	comment string
	// attempt is a scheduled run's attempt at its entity version (its
	// attribution record), 0 for an event-backed run.
	attempt int
}

func (d *demo) dispatchedRuns() []dispatched {
	var out []dispatched
	for _, r := range d.w.gh.Runs() {
		x := dispatched{run: r, agent: r.Inputs[plan.InAgent]}
		_ = json.Unmarshal([]byte(r.Inputs[plan.InNormalizedEvent]), &x.event)
		x.key = x.event.Entity.Key
		var wi plan.WorkItem
		if json.Unmarshal([]byte(r.Inputs[plan.InWorkItem]), &wi) == nil && wi.Attribution != nil {
			x.attempt = wi.Attribution.Attempt
		}
		if c := x.event.Transition.Comment; c != nil {
			x.comment = c.Body
		}
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].run.ID < out[j].run.ID })
	return out
}

// executeRuns plays the part of the generated GitHub workflow for every
// run not yet executed: `fullsend run` with the dispatch inputs in the
// environment verifies the poll lock, runs the agent and releases the lock.
func (d *demo) executeRuns(ctx context.Context) {
	for _, r := range d.dispatchedRuns() {
		if d.executed[r.run.ID] {
			continue
		}
		d.executed[r.run.ID] = true
		env := map[string]string{}
		for k, v := range d.w.env {
			env[k] = v
		}
		for name, v := range r.run.Inputs {
			env[plan.EnvVar(name)] = v
		}
		env["GITHUB_RUN_ID"] = fmt.Sprint(r.run.ID)
		code, stdout, stderr := d.run(ctx, env, "run", "--harness", r.agent)
		conclusion := "success"
		if code != 0 {
			conclusion = "failure"
			d.runFailures = append(d.runFailures, fmt.Sprintf("run %d (%s on %s) exited %d: %s", r.run.ID, r.agent, r.key, code, lastLine(stderr)))
		}
		_ = d.w.gh.CompleteRun(r.run.ID, conclusion)
		d.printf("    workflow run %d: fullsend run --harness %s → %s\n", r.run.ID, r.agent, strings.TrimSpace(firstLine(stdout)))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// runsFor returns the runs of agent about issue key.
func runsFor(all []dispatched, agent, key string) []dispatched {
	var out []dispatched
	for _, r := range all {
		if r.agent == agent && r.key == key {
			out = append(out, r)
		}
	}
	return out
}

// duplicates counts runs that carry the same change to the same harness.
func duplicates(all []dispatched) int {
	seen := map[string]bool{}
	dups := 0
	for _, r := range all {
		id := r.agent + "|" + r.key + "|" + r.event.Transition.Kind + "|" + r.comment
		if c := r.event.Transition.Comment; c != nil && c.ID != "" {
			id = r.agent + "|" + r.key + "|comment " + c.ID
		}
		if r.event.Transition.Label != nil {
			id += "|" + r.event.Transition.Label.Name
		}
		if r.attempt > 0 { // a scheduled run's retry is no duplicate
			id += fmt.Sprintf("|attempt %d", r.attempt)
		}
		if seen[id] {
			dups++
		}
		seen[id] = true
	}
	return dups
}
