package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/trigger"
)

// TestDocumentedTriggersCompile compiles every trigger example in
// docs/triggers.md, so the guide cannot drift from the implementation.
func TestDocumentedTriggersCompile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "triggers.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(b), "```yaml\n")[1:]
	if len(blocks) < 8 {
		t.Fatalf("found %d yaml examples, want at least 8", len(blocks))
	}
	for i, blk := range blocks {
		blk = blk[:strings.Index(blk, "```")]
		if !strings.Contains(blk, "role:") {
			blk = "role: r\n" + blk
		}
		h, probs := config.ParseHarness("triggers.md", "a", []byte(blk))
		if len(probs) > 0 {
			t.Errorf("example %d: %v", i, probs)
			continue
		}
		compile := trigger.Compile
		if h.Entity != nil { // an entity-source harness: entity and a nullable event
			compile = func(expr string) (*trigger.Trigger, error) { return trigger.CompileEntity(expr, trigger.Limits{}) }
		}
		if _, err := compile(h.Trigger); err != nil || h.Trigger == "" {
			t.Errorf("example %d %q: %v", i, h.Trigger, err)
		}
	}
}
