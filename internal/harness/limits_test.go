package harness

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// limits.trigger_cost in config.yaml reaches the compiled triggers: a
// trigger whose worst case exceeds it is rejected, at its position in the
// harness file.
func TestLoadDirAppliesTriggerLimits(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nlimits: {trigger_cost: 10, trigger_timeout: 5ms}\nagents:\n  - {name: a, source: a.yaml}\n",
		"a.yaml":      "role: r\ntrigger: 'event.state.labels.exists(l, l == \"x\")'\n",
	})
	_, _, err := LoadDir(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "a.yaml:2:11: trigger: trigger is too expensive: its worst-case cost is estimated at 6004, over limits.trigger_cost (10)") {
		t.Fatalf("LoadDir = %v; want the trigger rejected against limits.trigger_cost", err)
	}
}

// With the default limit, validation rejects a nested comprehension over
// the labels (its worst case over 1000 labels is tens of millions of
// units), naming the harness file, line and column; a single one passes.
func TestCheckRejectsTriggerOverDefaultCost(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nagents:\n  - {name: a, source: a.yaml}\n  - {name: b, source: b.yaml}\n",
		"a.yaml":      "role: r\ntrigger: >-\n  event.state.labels.all(a, event.state.labels.all(b, a + b != \"x\"))\n",
		"b.yaml":      "role: r\ntrigger: 'event.state.labels.exists(l, l.startsWith(\"area/\"))'\n",
	})
	_, hs, probs := Check(dir, nil)
	if len(probs) != 1 || len(hs) != 1 || hs[0].Name != "b" {
		t.Fatalf("Check = %d harnesses, problems %v; want only a.yaml rejected", len(hs), probs)
	}
	if msg := probs.Error(); !strings.Contains(msg, "a.yaml:3:3: trigger: trigger is too expensive: its worst-case cost is estimated at ") ||
		!strings.Contains(msg, "over limits.trigger_cost (1000000)") {
		t.Errorf("problem %q", msg)
	}
}
