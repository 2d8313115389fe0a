package jirapoll_test

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/receipts"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// A receipts property holding a record that cannot be read: the poller
// uses what it can read and keeps the rest as it is. Another harness's
// unreadable record and a third one's quarantined tries survive the
// tries the poller writes before dispatching a scheduled run; a
// harness whose own record cannot be read gets no scheduled run (its
// tries and quarantine are unknown: counting from nothing would widen its
// retries), and a value that is not an object at all is left as it is.
func TestCorruptReceiptsKeepWhatCanBeRead(t *testing.T) {
	quarantined := receipts.Receipts{}
	quarantined.Tried("other", "v1:zzz", "p.1", epoch)
	quarantined.Quarantined("other", "v1:zzz")
	good := string(quarantined.Marshal())
	const bad = `{"tries":{"version":"v1:yyy","count":"many"}}`
	for _, tc := range []struct {
		name, stored string
		dispatched   int
	}{
		{"another harness's record unreadable", good[:len(good)-1] + `,"broken":` + bad + `}`, 1},
		{"the harness's own record unreadable", good[:len(good)-1] + `,"label":` + bad + `}`, 0},
		{"not an object", `["receipts"]`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, jirasim.Options{})
			key := e.labelled(1, true)[0]
			e.sim.SetPropertyDirect(key, receipts.Key(repo), []byte(tc.stored))
			out := &recorder{}
			e.scheduledOneShot(nil, "p-1", &sweepDecider{}, out)
			if n := len(out.all()); n != tc.dispatched {
				t.Fatalf("%d scheduled runs dispatched, want %d", n, tc.dispatched)
			}
			raw, _ := e.sim.Property(key, receipts.Key(repo))
			if tc.dispatched == 0 {
				if string(raw) != tc.stored {
					t.Errorf("receipts %s, want them left as they were", raw)
				}
				return
			}
			rs, _ := receipts.Parse(raw)
			if tr := rs["label"].Tries; tr == nil || tr.Count != 1 {
				t.Errorf("the dispatched run's try is not recorded: %s", raw)
			}
			if tr := rs["other"].Tries; tr == nil || !tr.Quarantined {
				t.Errorf("the other harness's quarantined tries were lost: %s", raw)
			}
			if !strings.Contains(string(raw), `"broken":`+bad) {
				t.Errorf("the unreadable record was not kept as it is: %s", raw)
			}
		})
	}
}
