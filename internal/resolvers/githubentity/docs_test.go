package githubentity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/entities.md states the listing bounds the resolver applies.
func TestDocsStateTheBounds(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "entities.md"))
	must(t, err)
	doc := strings.Join(strings.Fields(string(data)), " ")
	for _, want := range []string{
		fmt.Sprintf("read %d items per page", PerPage),
		fmt.Sprintf("more than %d pages (%d items) keeps its newest %d", MaxPages, MaxPages*PerPage, MaxPages*PerPage),
		fmt.Sprintf("then the last %d pages are read (%d calls)", MaxPages, MaxPages+1),
		fmt.Sprintf("at most %d per listing", MaxPages+1),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/entities.md does not say %q", want)
		}
	}
}
