package pollmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fullsend-dev/fullsend/internal/metrics"
	"github.com/fullsend-dev/fullsend/internal/poll"
)

func TestEntitySeries(t *testing.T) {
	m := metrics.New(time.Minute)
	observe := New(m).Cycles("json")
	observe(poll.CycleStats{Driver: "jira-poll", EntitySystem: "jira", EntitiesResolved: 4, EntitiesUnresolved: 1,
		EntityDenials: map[poll.DenialKey]int{}})
	observe(poll.CycleStats{Driver: "jira-poll", EntitySystem: "jira", EntitiesResolved: 2, EntitiesUnresolved: 2,
		EntityDenials: map[poll.DenialKey]int{{Harness: "triage", Reason: "unresolved"}: 3, {Harness: "triage", Reason: "incomplete"}: 1}})
	observe(poll.CycleStats{Driver: "gitlab-poll"}) // no entity stage: no series
	// A driver without an entity stage: its changes' denials still count.
	observe(poll.CycleStats{Driver: "github-poll", EntityDenials: map[poll.DenialKey]int{{Harness: "review", Reason: "unresolved"}: 2}})
	want := `
# HELP fullsend_entity_denials_total Changes an entity-source harness was denied evaluation of, by harness and reason (unresolved, incomplete).
# TYPE fullsend_entity_denials_total counter
fullsend_entity_denials_total{harness="review",reason="unresolved"} 2
fullsend_entity_denials_total{harness="triage",reason="incomplete"} 1
fullsend_entity_denials_total{harness="triage",reason="unresolved"} 3
# HELP fullsend_entity_resolutions_total Entities the entity stage resolved, by system and result (ok, failed: evaluation denied).
# TYPE fullsend_entity_resolutions_total counter
fullsend_entity_resolutions_total{result="failed",system="jira"} 3
fullsend_entity_resolutions_total{result="ok",system="jira"} 6
`
	names := []string{"fullsend_entity_denials_total", "fullsend_entity_resolutions_total"}
	if err := testutil.GatherAndCompare(gatherer(m), strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	if problems, err := testutil.GatherAndLint(gatherer(m), names...); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
}

// Overlay errors of the cycle's decisions are counted by harness.
func TestOverlayErrorSeries(t *testing.T) {
	m := metrics.New(time.Minute)
	observe := New(m).Cycles("json")
	observe(poll.CycleStats{Driver: "jira-poll", OverlayErrors: map[string]int{"triage": 2}})
	observe(poll.CycleStats{Driver: "github-poll", OverlayErrors: map[string]int{"triage": 1, "review": 1}})
	want := `
# HELP fullsend_overlay_errors_total Runs planned with their harness's own settings because an overlay's when could not be evaluated, by harness.
# TYPE fullsend_overlay_errors_total counter
fullsend_overlay_errors_total{harness="review"} 1
fullsend_overlay_errors_total{harness="triage"} 3
`
	if err := testutil.GatherAndCompare(gatherer(m), strings.NewReader(want), "fullsend_overlay_errors_total"); err != nil {
		t.Fatal(err)
	}
}
