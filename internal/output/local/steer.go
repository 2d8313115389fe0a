package local

import (
	"github.com/fullsend-dev/fullsend/internal/coalesce"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
	"github.com/fullsend-dev/fullsend/internal/steer/localsteer"
)

// The pending slot made visible to the active run of its scope, for
// steering (docs/steering.md): a run that waits behind its key's active
// run is recorded in the key's pending file (localsteer), which every
// child is named ($FULLSEND_STEER_QUEUE), and the file is forgotten when
// the key's next run starts.

// steerFile is key's pending file; "" without the directory.
func (d *Driver) steerFile(key scope.Key) string {
	if d.steer == nil {
		return ""
	}
	return d.steer.Path(string(key))
}

// notePending records r when it waits behind its key's active run.
func (d *Driver) notePending(out coalesce.Outcome, r plan.Run) {
	if d.steer == nil || r.WorkItem.IdempotencyKey == "" || (out != coalesce.Pending && out != coalesce.Coalesced) {
		return
	}
	if err := d.steer.Pending(string(r.Key), r.WorkItem.IdempotencyKey); err != nil {
		d.log.Warn("local: could not record the pending run for steering; it runs as usual", "key", string(r.Key), "error", err.Error())
	}
}

// steerStarted forgets key's pending runs as its next run starts.
func (d *Driver) steerStarted(key scope.Key) {
	if d.steer != nil {
		d.steer.Started(string(key))
	}
}

// steerEnv is what a child learns of steering: its pending file and its
// own change.
func steerEnv(job Job) []string {
	if job.SteerFile == "" {
		return nil
	}
	env := []string{localsteer.EnvQueue + "=" + job.SteerFile}
	if k := job.Run.WorkItem.IdempotencyKey; k != "" {
		env = append(env, "FULLSEND_IDEMPOTENCY_KEY="+k)
	}
	return env
}
