package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		h, probs := ParseFile("triggers.md", "a", []byte(blk))
		if len(probs) > 0 {
			t.Errorf("example %d: %v", i, probs)
			continue
		}
		compile := trigger.CompileWith
		if h.Entity != nil { // an entity-source harness: entity and a nullable event
			compile = trigger.CompileEntity
		}
		if _, err := compile(h.Trigger, trigger.Limits{}); err != nil || h.Trigger == "" {
			t.Errorf("example %d %q: %v", i, h.Trigger, err)
		}
		if _, probs := compileOverlays(h, compile, trigger.Limits{}); len(probs) > 0 {
			t.Errorf("example %d overlays: %v", i, probs)
		}
	}
}

// TestDocumentedOverlaysLoad loads every harness example with overlays in
// docs/configuration.md and docs/triggers.md.
func TestDocumentedOverlaysLoad(t *testing.T) {
	n := 0
	for _, doc := range []string{"configuration.md", "triggers.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, blk := range strings.Split(string(b), "```yaml\n")[1:] {
			blk = blk[:strings.Index(blk, "```")]
			if !strings.Contains(blk, "\noverlays:") {
				continue
			}
			n++
			h, probs := ParseFile(doc, "a", []byte(blk))
			if len(probs) > 0 {
				t.Errorf("%s: %v", doc, probs)
				continue
			}
			compile := trigger.CompileWith
			if h.Entity != nil {
				compile = trigger.CompileEntity
			}
			if ovs, probs := compileOverlays(h, compile, trigger.Limits{}); len(probs) > 0 || len(ovs) < 2 {
				t.Errorf("%s: %d overlays, %v", doc, len(ovs), probs)
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d examples with overlays, want 2", n)
	}
}
