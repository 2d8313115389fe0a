package harness

import (
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/testfs"
)

// limits.trigger_cost in config.yaml reaches the compiled triggers: the
// compile-time bound is CompileCostFactor times it.
func TestLoadDirAppliesTriggerLimits(t *testing.T) {
	dir := testfs.WriteTree(t, map[string]string{
		"config.yaml": "version: 1\nlimits: {trigger_cost: 10, trigger_timeout: 5ms}\nagents:\n  - {name: a, source: a.yaml}\n",
		"a.yaml":      "role: r\ntrigger: 'event.state.labels.exists(l, l == \"x\")'\n",
	})
	_, _, err := LoadDir(dir, nil)
	if err == nil || !strings.Contains(err.Error(), "a.yaml:2:11: trigger: trigger is too expensive: its worst-case cost is estimated at 6004, over the limit of 1000") {
		t.Fatalf("LoadDir = %v; want the trigger rejected against 100 x limits.trigger_cost", err)
	}
}
