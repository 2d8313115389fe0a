package demo

import (
	"fmt"
	"io"
	"time"
)

// Summary is what the demo saw.
type Summary struct {
	Pollers      int
	Cycles       int
	Changes      int // events reconstructed from Jira changes
	Dispatched   int // workflow runs GitHub received
	Denied       int
	Coalesced    int
	Duplicates   int
	JiraCallsAvg float64 // per cycle
	JiraCallsMax int
	Runs         []string // where each run went
	// GitLabPipelines are the agent pipelines the GitLab scene's webhook
	// deliveries started, with their status.
	GitLabPipelines []string
	Checks          []Check
	Duration        time.Duration
}

func (d *demo) summary(dur time.Duration) *Summary {
	s := &Summary{Pollers: d.pollers, Checks: d.checks, Duration: dur}
	d.t.mu.Lock()
	total := 0
	for _, c := range d.t.cycles {
		s.Cycles++
		s.Changes += c.Events
		s.Denied += c.Denied
		s.Coalesced += c.Coalesced
		total += c.APICalls
		if c.APICalls > s.JiraCallsMax {
			s.JiraCallsMax = c.APICalls
		}
	}
	d.t.mu.Unlock()
	if s.Cycles > 0 {
		s.JiraCallsAvg = float64(total) / float64(s.Cycles)
	}
	all := d.dispatchedRuns()
	s.Dispatched = len(all)
	s.Duplicates = duplicates(all)
	for _, r := range all {
		s.Runs = append(s.Runs, fmt.Sprintf("%-13s %-7s → %s workflow %s on %s (%s)", r.agent, r.key, r.run.Repo, r.run.Workflow, r.run.Ref, r.run.HTMLURL))
	}
	for _, p := range d.w.gl.sim.Pipelines(glProject) {
		s.GitLabPipelines = append(s.GitLabPipelines, fmt.Sprintf("%-13s !%d     → %s pipeline %d on %s: %s",
			p.Variables["FULLSEND_AGENT"], d.w.gl.mrIID, glProject, p.ID, p.Ref, p.Status))
	}
	return s
}

// AllOK reports whether every check held.
func (s *Summary) AllOK() bool { return s.Failed() == 0 }

// Failed counts failed checks.
func (s *Summary) Failed() int {
	n := 0
	for _, c := range s.Checks {
		if !c.OK {
			n++
		}
	}
	return n
}

// Print writes the readable summary.
func (s *Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "\nSummary (%s)\n", s.Duration.Round(time.Millisecond))
	fmt.Fprintf(w, "  poll cycles          %d (%d concurrent pollers)\n", s.Cycles, s.Pollers)
	fmt.Fprintf(w, "  changes seen         %d\n", s.Changes)
	fmt.Fprintf(w, "  runs dispatched      %d\n", s.Dispatched)
	fmt.Fprintf(w, "  denied               %d\n", s.Denied)
	fmt.Fprintf(w, "  coalesced            %d\n", s.Coalesced)
	fmt.Fprintf(w, "  duplicates           %d\n", s.Duplicates)
	fmt.Fprintf(w, "  Jira calls per cycle %.1f on average, %d at most\n", s.JiraCallsAvg, s.JiraCallsMax)
	fmt.Fprintf(w, "  where each run went:\n")
	for _, r := range append(append([]string(nil), s.Runs...), s.GitLabPipelines...) {
		fmt.Fprintf(w, "    %s\n", r)
	}
	ok := len(s.Checks) - s.Failed()
	fmt.Fprintf(w, "  checks               %d of %d held\n", ok, len(s.Checks))
	for _, c := range s.Checks {
		if !c.OK {
			fmt.Fprintf(w, "    FAILED: %s: %s\n", c.Name, c.Detail)
		}
	}
}
