//go:build unix

package harness

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/config"
)

// A FIFO as config.yaml or as a harness file is refused at once: opening
// one for reading would block until a writer appears, beyond SIGINT.
func TestNonRegularFilesAreRefusedWithoutBlocking(t *testing.T) {
	cases := []struct {
		name string
		load func(dir string) error
		file string
	}{
		{"config.yaml", func(dir string) error { _, err := config.Load(dir, nil); return err }, config.FileName},
		{"harness file", func(dir string) error {
			if _, probs := ReadFile(filepath.Join(dir, "h.yaml"), "h"); len(probs) > 0 {
				return probs
			}
			return nil
		}, "h.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.file)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			done := make(chan error, 1)
			go func() { done <- tc.load(dir) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second): // a safety net only: the load must return at once
				t.Fatal("loading a FIFO blocked")
			}
			if err == nil || !strings.Contains(err.Error(), "named pipe (FIFO)") || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want a FIFO refusal naming %s", err, path)
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := syscall.Mkdir(filepath.Join(dir, config.FileName), 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := config.Load(dir, nil); err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("err = %v, want a directory refusal", err)
		}
	})
}
