//go:build !unix

package steer

// guardFlags: nothing more elsewhere (`fullsend run` starts no agent
// there).
const guardFlags = 0
