package local

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/steer/localsteer"
)

// The active run of a key sees the runs that wait behind it in its
// pending file, the last one waiting; the file is forgotten when the
// pending run starts, and every child is named it.
func TestPendingFileForSteering(t *testing.T) {
	d, f := newFakeDriver(t, 2, time.Second)
	defer func() { _ = d.Close(context.Background()) }()
	ctx := context.Background()
	keyed := func(comment, idem string) plan.Run {
		r := mkRun("triage", 1, comment)
		r.WorkItem.IdempotencyKey = string(r.Key) + "@" + idem
		return r
	}
	d.Dispatch(ctx, []plan.Run{keyed("first", "1777626000000")})
	first := f.next(t)
	if first.job.SteerFile == "" || !slices.Contains(steerEnv(first.job), localsteer.EnvQueue+"="+first.job.SteerFile) ||
		!slices.Contains(steerEnv(first.job), "FULLSEND_IDEMPOTENCY_KEY="+first.job.Run.WorkItem.IdempotencyKey) {
		t.Fatalf("the child is not told its pending file and change: %+v", steerEnv(first.job))
	}
	if rs, err := localsteer.Read(first.job.SteerFile); err != nil || len(rs) != 0 {
		t.Fatalf("records before a pending run: %v %v", rs, err)
	}
	d.Dispatch(ctx, []plan.Run{keyed("second", "1777626001000"), keyed("third", "1777626002000")})
	rs, err := localsteer.Read(first.job.SteerFile)
	if err != nil || len(rs) != 2 || rs[0].Waiting || !rs[1].Waiting || rs[1].Pos.At.UnixMilli() != 1777626002000 {
		t.Fatalf("records %+v, %v: want the replaced run then the pending one", rs, err)
	}
	first.end <- nil
	third := f.next(t)
	if third.job.Run.Event.Transition.Comment.Body != "third" {
		t.Fatalf("started %q", third.job.Run.Event.Transition.Comment.Body)
	}
	if rs, _ := localsteer.Read(first.job.SteerFile); len(rs) != 0 {
		t.Fatalf("records after the pending run started: %+v", rs)
	}
	third.end <- nil
}
