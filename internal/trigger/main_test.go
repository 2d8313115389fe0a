package trigger

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves goroutines behind (the
// concurrency test starts several).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
