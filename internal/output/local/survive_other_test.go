//go:build !linux

package local

func pollerHelper() bool    { return false }
func survivorHelper(string) {}
