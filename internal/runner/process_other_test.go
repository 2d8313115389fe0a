//go:build !linux

package runner

import (
	"errors"
	"time"
)

// exitedWithin needs pidfds, which only Linux has.
func exitedWithin(int, time.Duration) (bool, error) {
	return false, errors.New("waiting for a non-child process needs Linux")
}
