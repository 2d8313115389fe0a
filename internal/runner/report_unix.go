//go:build unix

package runner

import (
	"os"
	"syscall"
)

// reportFile returns descriptor n as a file when it is an open regular
// file (the local executor's run report), else nil: a stray
// $FULLSEND_RUN_REPORT_FD never makes fullsend write to, or close, a
// descriptor of its own runtime.
func reportFile(n int) *os.File {
	var st syscall.Stat_t
	if n < 3 || syscall.Fstat(n, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil
	}
	return os.NewFile(uintptr(n), "run report")
}
