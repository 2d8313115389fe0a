package event

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// endless yields n bytes of 'a' after a prefix and counts what was read.
type endless struct {
	prefix string
	left   int64
	read   int64
}

func (r *endless) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		if len(r.prefix) > 0 {
			p[n] = r.prefix[0]
			r.prefix = r.prefix[1:]
		} else {
			p[n] = 'a'
		}
		n++
		r.left--
	}
	r.read += int64(n)
	return n, nil
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		r       io.Reader
		limit   int64
		wantErr string // "" means success
	}{
		{"example under default limit", strings.NewReader(exampleJSON), 0, ""},
		{"example at exact limit", strings.NewReader(exampleJSON), int64(len(exampleJSON)), ""},
		{"one byte over custom limit", strings.NewReader(exampleJSON), int64(len(exampleJSON)) - 1, "event is larger than"},
		{"10 MB stream", &endless{prefix: `{"repo":"`, left: 10 << 20}, 0, "event is larger than 1 MiB"},
		{"KiB limit text", &endless{left: 5000}, 4096, "event is larger than 4 KiB"},
		{"byte limit text", &endless{left: 5000}, 1000, "event is larger than 1000 bytes"},
		{"reader failure", failingReader{}, 0, "disk on fire"},
		{"invalid content", strings.NewReader(`{"repo":1}`), 0, "/repo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Read(tc.r, tc.limit)
			if tc.wantErr == "" {
				if err != nil || ev == nil || ev.Repo != "acme/platform" {
					t.Fatalf("Read = %v, %v", ev, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want it to contain %q", err, tc.wantErr)
			}
			limit := tc.limit
			if limit == 0 {
				limit = DefaultMaxBytes
			}
			if e, ok := tc.r.(*endless); ok && e.read > limit+1 {
				t.Fatalf("read %d bytes with limit %d", e.read, limit)
			}
		})
	}
}
