//go:build !linux

package runner

// hideFromSameUser does nothing outside Linux: macOS has no /proc, and a
// same-user process there needs the debugger entitlement to read another
// process's memory. docs/runner.md lists the guarantees per platform.
func hideFromSameUser() error { return nil }

// dumpable reports 1: the process is not hidden.
func dumpable() (int, error) { return 1, nil }
