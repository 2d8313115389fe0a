package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// cycleRecord is the part of a "poll cycle" log record the demo reads.
type cycleRecord struct {
	CycleID    string `json:"cycle_id"`
	Candidates int    `json:"candidates"`
	Eligible   int    `json:"eligible"`
	Acquired   int    `json:"locks_acquired"`
	Lost       int    `json:"locks_lost"`
	Events     int    `json:"events"`
	Denied     int    `json:"events_denied"`
	Coalesced  int    `json:"runs_coalesced"`
	Dispatched int    `json:"dispatches_scheduled"`
	Failed     int    `json:"dispatches_failed"`
	APICalls   int    `json:"api_calls"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error"`
}

// denial is a "change denied" record: who was refused and why.
type denial struct {
	Item   string `json:"item"`
	Actor  string `json:"actor"`
	Reason string `json:"reason"`
}

// tally accumulates what every cycle reported.
type tally struct {
	mu      sync.Mutex
	cycles  []cycleRecord
	denials []denial
	failed  []string // poller invocations that did not exit 0
}

// round runs one poll cycle on each of n concurrent pollers and prints a
// line per cycle. It returns the round's records.
func (d *demo) round(ctx context.Context, n int) []cycleRecord {
	var wg sync.WaitGroup
	recs := make([][]cycleRecord, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			code, _, stderr := d.run(ctx, d.w.env, "poll", "--log-level", "debug")
			cycles, denials := parseLog([]byte(stderr))
			d.t.mu.Lock()
			defer d.t.mu.Unlock()
			if code != 0 {
				d.t.failed = append(d.t.failed, fmt.Sprintf("poller %d exited %d: %s", i+1, code, lastLine(stderr)))
			}
			d.t.cycles = append(d.t.cycles, cycles...)
			d.t.denials = append(d.t.denials, denials...)
			recs[i] = cycles
		}(i)
	}
	wg.Wait()
	var all []cycleRecord
	for i, rs := range recs {
		for _, r := range rs {
			d.printf("    poller %d  cycle %.8s  candidates %d  eligible %d  locked %d  events %d  denied %d  coalesced %d  dispatched %d  Jira calls %d  %dms\n",
				i+1, r.CycleID, r.Candidates, r.Eligible, r.Acquired, r.Events, r.Denied, r.Coalesced, r.Dispatched, r.APICalls, r.DurationMS)
			all = append(all, r)
		}
	}
	return all
}

// settle runs rounds until nothing is eligible any more (at most max).
func (d *demo) settle(ctx context.Context, max int) {
	for i := 0; i < max && ctx.Err() == nil; i++ {
		busy := false
		for _, r := range d.round(ctx, d.pollers) {
			if r.Eligible > 0 || r.Dispatched > 0 || r.Error != "" {
				busy = true
			}
		}
		d.executeRuns(ctx)
		if !busy {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func parseLog(b []byte) ([]cycleRecord, []denial) {
	var cycles []cycleRecord
	var denials []denial
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var head struct {
			Msg string `json:"msg"`
		}
		line := sc.Bytes()
		if json.Unmarshal(line, &head) != nil {
			continue
		}
		switch head.Msg {
		case "poll cycle":
			var r cycleRecord
			if json.Unmarshal(line, &r) == nil {
				cycles = append(cycles, r)
			}
		case "change denied":
			var dn denial
			if json.Unmarshal(line, &dn) == nil {
				denials = append(denials, dn)
			}
		}
	}
	return cycles, denials
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
