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
		h, probs := config.ParseHarness("triggers.md", "a", []byte("role: r\n"+blk))
		if len(probs) > 0 {
			t.Errorf("example %d: %v", i, probs)
			continue
		}
		if _, err := trigger.Compile(h.Trigger); err != nil || h.Trigger == "" {
			t.Errorf("example %d %q: %v", i, h.Trigger, err)
		}
	}
}
