package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The dispatch inputs of event-only runs (no entity) are what they were
// before runs carried entities, byte for byte: the example events, with and
// without a poll lock, and a comment too long for the inputs (cut by
// FitInputs), recorded in testdata/eventonly-inputs.golden.
func TestEventOnlyInputsGolden(t *testing.T) {
	var runs []Run
	for _, name := range []string{"triage-comment.json", "label-added.json", "outsider-comment.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "events", name))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := event.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		r := Run{Harness: "triage", Role: "triage", Event: ev, Key: "triage:acme/platform:x:work_item:1", WorkItem: WorkItemOf(ev)}
		runs = append(runs, r)
		r.PollLock = &PollLock{ID: "p.1", Driver: "jira-poll", Property: "PROJ-123/fullsend.poll.acme.platform.lock"}
		r.WorkItem.IdempotencyKey = "triage:acme/platform:x:work_item:1@2026-01-01T00:00:00Z"
		runs = append(runs, r)
		long := ev.Clone()
		if long.Transition.Comment != nil && name == "triage-comment.json" {
			long.Transition.Comment.Body = "/fs-triage " + strings.Repeat("é<&>\"", 4000)
			long.Transition.Comment.Instruction = strings.Repeat("x", 4000)
			long.State.Labels = []string{strings.Repeat("l", 200), strings.Repeat("m", 200)}
			r.Event = long
			runs = append(runs, r)
		}
	}
	var b bytes.Buffer
	for _, r := range runs {
		var line bytes.Buffer
		enc := json.NewEncoder(&line) // keys sorted
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r.Inputs()); err != nil {
			t.Fatal(err)
		}
		if line.Len() > 4096 { // the cut run: its digest and size
			fmt.Fprintf(&b, "sha256:%x bytes:%d\n", sha256.Sum256(line.Bytes()), line.Len())
			continue
		}
		b.Write(line.Bytes())
	}
	golden := filepath.Join("testdata", "eventonly-inputs.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("event-only inputs changed:\n got %s\nwant %s", b.Bytes(), want)
	}
}
