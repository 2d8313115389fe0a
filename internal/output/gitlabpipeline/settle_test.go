package gitlabpipeline

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/sim/gitlabsim"
)

// TestSettleOnCreate: a second pipeline carrying the idempotency key of a
// GitLab change an older pipeline already carries is cancelled at once,
// on whichever path created it (webhook or backstop); runs of other
// subjects, or without a key, are never settled.
func TestSettleOnCreate(t *testing.T) {
	at := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name       string
		forge      string
		key        bool
		wantSecond string // status of the second pipeline
	}{
		{"gitlab change dispatched twice", "gitlab", true, "canceled"},
		{"gitlab run without a key", "gitlab", false, "waiting_for_resource"},
		{"github change", "github", true, "waiting_for_resource"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, gitlabsim.Options{})
			d := e.driver(t)
			run := mkRun("triage", 7, "/fs-triage")
			run.Key = scope.KeyOf("triage", run.Event, tc.forge)
			if tc.key {
				run.WorkItem.IdempotencyKey = changepos.KeyAt(string(run.Key), at)
			}
			first := dispatch1(t, d, run)
			second := dispatch1(t, d, run)
			p1, _ := e.sim.Pipeline(first)
			p2, _ := e.sim.Pipeline(second)
			if p2.Status != tc.wantSecond {
				t.Errorf("second pipeline %d: %s, want %s", second, p2.Status, tc.wantSecond)
			}
			if tc.wantSecond == "canceled" && p1.Status == "canceled" {
				t.Errorf("both pipelines of the change were cancelled: the change would be lost")
			}
		})
	}
}

// TestSettleScheduledRetry: a scheduled run's key (scope key @ entity
// version) is carried by every attempt of the version: a retry after a
// failed attempt stays live, a second dispatch while an attempt is
// still going is cancelled as its duplicate.
func TestSettleScheduledRetry(t *testing.T) {
	cases := []struct {
		name         string
		firstEnds    string // the first pipeline's job ends so ("": still going)
		wantCanceled bool   // the second pipeline
	}{
		{"after a failed attempt", "failed", false},
		{"while an attempt runs", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, gitlabsim.Options{})
			d := e.driver(t)
			run := mkRun("triage", 7, "/fs-triage")
			run.Key = scope.KeyOf("triage", run.Event, "gitlab")
			run.WorkItem.IdempotencyKey = string(run.Key) + "@v1:abc"
			first := dispatch1(t, d, run)
			if tc.firstEnds != "" {
				p1, _ := e.sim.Pipeline(first)
				if err := e.sim.FinishJob(p1.JobID, tc.firstEnds); err != nil {
					t.Fatal(err)
				}
			}
			second := dispatch1(t, d, run)
			if p2, _ := e.sim.Pipeline(second); (p2.Status == gitlabsim.StatusCanceled) != tc.wantCanceled {
				t.Errorf("second pipeline: %s, want canceled %v", p2.Status, tc.wantCanceled)
			}
		})
	}
}
