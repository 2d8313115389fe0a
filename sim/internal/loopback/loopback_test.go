package loopback

import (
	"strings"
	"testing"
)

func TestListen(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := Listen("sim", addr)
		if err != nil {
			t.Fatalf("Listen(%q): %v", addr, err)
		}
		ln.Close()
	}
	for _, addr := range []string{"0.0.0.0:0", "example.com:0", ":0"} {
		ln, err := Listen("sim", addr)
		if err == nil {
			ln.Close()
			t.Fatalf("Listen(%q) accepted a non-loopback address", addr)
		}
		if !strings.HasPrefix(err.Error(), "sim: ") || !strings.Contains(err.Error(), addr) {
			t.Errorf("Listen(%q) error = %v", addr, err)
		}
	}
	if _, err := Listen("sim", "no-port"); err == nil {
		t.Error("address without port accepted")
	}
}
