// Package loopback opens the listeners of the emulators, which only ever
// serve on the local machine.
package loopback

import (
	"errors"
	"net"
)

// Listen listens on TCP addr ("host:port"), whose host must be "localhost"
// or a loopback IP address. Any other host fails with an error that starts
// with "<name>: " and names addr, and nothing is opened.
func Listen(name, addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, errors.New(name + ": listen address must be loopback, got " + addr)
	}
	return net.Listen("tcp", addr)
}
