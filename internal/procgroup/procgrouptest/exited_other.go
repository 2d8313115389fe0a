//go:build unix && !linux

package procgrouptest

import (
	"errors"
	"time"
)

// ExitedWithin needs pidfds, which only Linux has.
func ExitedWithin(int, time.Duration) (bool, error) {
	return false, errors.New("waiting for a non-child process needs Linux")
}
