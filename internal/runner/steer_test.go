package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/changepos"
	"github.com/fullsend-dev/fullsend/internal/harness"
	"github.com/fullsend-dev/fullsend/internal/steer"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// oneFollowUp is a steer.Source with one follow-up.
type oneFollowUp struct {
	mu       sync.Mutex
	recorded []int64
}

func (o *oneFollowUp) Discover(context.Context) ([]steer.Comment, error) {
	return []steer.Comment{{ID: 77, Pos: changepos.Pos{At: time.Unix(1777626000, 0), ID: 77}, Steer: true,
		Msg: steer.Message{ID: steer.IDOf(77), Actor: "alice", Role: "write", Text: "also the retries"}}}, nil
}

func (o *oneFollowUp) Record(_ context.Context, c steer.Comment) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.recorded = append(o.recorded, c.ID)
	return nil
}

// With steer.stdin the agent reads the follow-up on its standard input
// (and the mailbox has it); what it acknowledged is recorded only when it
// exits 0.
func TestRunSteersThroughStdinAndRecordsOnSuccess(t *testing.T) {
	for _, tc := range []struct {
		exit string
		want []int64
	}{{"exit=0", []int64{77}}, {"exit=5", nil}} {
		t.Run(tc.exit, func(t *testing.T) {
			var log syncio.Buffer
			got := filepath.Join(t.TempDir(), "line")
			src := &oneFollowUp{}
			spec := testSpec(t, nil, &log, "stdin-ack="+got, tc.exit)
			spec.Steer = &SteerSpec{Settings: harness.Steer{Enabled: true, Max: 2, Stdin: true}, Source: src,
				Ordered: true, Ticks: make(chan time.Time)}
			if _, err := Run(context.Background(), spec); err != nil {
				t.Fatal(err)
			}
			line, err := os.ReadFile(got)
			if err != nil {
				t.Fatalf("the agent read nothing on stdin: %v\n%s", err, log.String())
			}
			if m, err := steer.DecodeMessage(line); err != nil || m.ID != "comment-77" || m.Text != "also the retries" {
				t.Fatalf("stdin line %q: %+v %v", line, m, err)
			}
			if !reflect.DeepEqual(src.recorded, tc.want) {
				t.Fatalf("recorded %v, want %v\n%s", src.recorded, tc.want, log.String())
			}
			if tc.want == nil && !strings.Contains(log.String(), "did not succeed") {
				t.Fatalf("no log of the unrecorded follow-up:\n%s", log.String())
			}
		})
	}
}
