//go:build !unix

package tether

import (
	"errors"
	"os"
)

var errUnsupported = errors.New("tether: no process groups on this platform")

// Start is unsupported without process groups (procgroup.Supported).
func Start(string, *os.File, *os.File) (*Tether, error) { return nil, errUnsupported }

// KillGroup is unsupported without process groups.
func KillGroup(int) error { return errUnsupported }

// IgnoreSignals does nothing here.
func IgnoreSignals() {}
