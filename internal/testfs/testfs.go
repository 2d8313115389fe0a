// Package testfs builds file trees for tests.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteTree creates files (slash-separated path relative to the tree ->
// content) under a new t.TempDir, making parent directories as needed
// (mode 0755; files 0644), and returns the tree's root. Any failure ends
// the test.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
