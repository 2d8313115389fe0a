package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteTree(t *testing.T) {
	dir := WriteTree(t, map[string]string{"a.txt": "one", "sub/dir/b.yaml": "two"})
	for name, want := range map[string]string{"a.txt": "one", "sub/dir/b.yaml": "two"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}
