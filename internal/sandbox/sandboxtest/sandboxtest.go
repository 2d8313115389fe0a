// Package sandboxtest helps the tests of the agent's isolation that
// change the machine (they run as root).
package sandboxtest

import (
	"os"
	"testing"
)

// ProtectedHardlinks is the kernel setting that decides which files a
// user may hard-link: 0 (the kernel's default) any file it can reach, 1
// only its own or those it may read and write.
const ProtectedHardlinks = "/proc/sys/fs/protected_hardlinks"

// SetProtectedHardlinks sets ProtectedHardlinks to v ("0" or "1") until
// the test ends; the test is skipped where the setting does not exist.
func SetProtectedHardlinks(t testing.TB, v string) {
	t.Helper()
	old, err := os.ReadFile(ProtectedHardlinks)
	if err != nil {
		t.Skipf("no %s: %v", ProtectedHardlinks, err)
	}
	if err := os.WriteFile(ProtectedHardlinks, []byte(v), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(ProtectedHardlinks, old, 0); err != nil {
			t.Errorf("restore %s: %v", ProtectedHardlinks, err)
		}
	})
}
