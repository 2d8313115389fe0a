package gitlab

import (
	"errors"
	"strings"
	"testing"
)

func TestNewClient(t *testing.T) {
	tests := []struct {
		name, url, token, wantBase, wantErr string
	}{
		{"suffix added", "https://gl.example.com/gitlab", "t", "https://gl.example.com/gitlab/api/v4/", ""},
		{"suffix kept", "https://gitlab.com/api/v4", "t", "https://gitlab.com/api/v4/", ""},
		{"loopback http", "http://127.0.0.1:8080", "t", "http://127.0.0.1:8080/api/v4/", ""},
		{"remote http refused", "http://gl.example.com", "t", "", "http"},
		{"no token", "https://gitlab.com", "", "", ErrNoToken.Error()},
	}
	for _, tc := range tests {
		c, err := NewClient(Options{APIURL: tc.url, Token: tc.token})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.wantErr)
			}
			if tc.token == "" && !errors.Is(err, ErrNoToken) {
				t.Errorf("%s: err %v is not ErrNoToken", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := c.BaseURL().String(); got != tc.wantBase {
			t.Errorf("%s: base = %q, want %q", tc.name, got, tc.wantBase)
		}
	}
}
