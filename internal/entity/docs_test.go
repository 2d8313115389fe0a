package entity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/entities.md states the bounds the code enforces, and its example is
// a valid entity.
func TestDocsMatchTheContract(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "entities.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, want := range []string{
		fmt.Sprintf("**at most %d**", MaxActivity),
		fmt.Sprintf("at most %d, each 1–256", MaxAssignees),
		fmt.Sprintf("at most %d code points (may be empty)", MaxTitle),
		fmt.Sprintf("%d MiB", DefaultMaxBytes>>20),
		"`$id` `" + SchemaID + "`",
		"its last **successful** run on this entity",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/entities.md does not say %q", want)
		}
	}
	_, rest, ok := strings.Cut(doc, "## Example")
	_, block, ok2 := strings.Cut(rest, "```json\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/entities.md has no JSON example")
	}
	if _, err := Decode([]byte(block)); err != nil {
		t.Fatalf("the example in docs/entities.md is invalid: %v", err)
	}
}
