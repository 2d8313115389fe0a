package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadPayload(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.json")
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(ok, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte(`{"a":12345}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, stdin string
		data              []byte
		want, wantErr     string
	}{
		{name: "data wins", data: []byte(`{}`), path: ok, want: `{}`},
		{name: "file", path: ok, want: `{"a":1}`},
		{name: "stdin", path: "-", stdin: `{"b":2}`, want: `{"b":2}`},
		{name: "data too large", data: []byte(`0123456789`), wantErr: "drv: payload is larger than 8 bytes"},
		{name: "file too large", path: big, wantErr: "is larger than 8 bytes"},
		{name: "missing file", path: filepath.Join(dir, "nope"), wantErr: "drv: payload file:"},
		{name: "no stdin", path: "-", wantErr: "no standard input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdin *strings.Reader
			if tt.stdin != "" {
				stdin = strings.NewReader(tt.stdin)
			}
			var got []byte
			var err error
			if stdin != nil {
				got, _, err = ReadPayload("drv", tt.data, tt.path, stdin, 8)
			} else {
				got, _, err = ReadPayload("drv", tt.data, tt.path, nil, 8)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
