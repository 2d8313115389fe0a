package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"

	gl "gitlab.com/gitlab-org/api/client-go"
)

func TestRefused(t *testing.T) {
	answer := func(status int) error {
		return &gl.ErrorResponse{Response: &http.Response{StatusCode: status}}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"400", answer(400), true},
		{"403", answer(403), true},
		{"404 (client-go's ErrNotFound)", fmt.Errorf("create: %w", gl.ErrNotFound), true},
		{"422", answer(422), true},
		{"408", answer(408), false},
		{"429", answer(429), false},
		{"500", answer(500), false},
		{"never connected", &net.OpError{Op: "dial", Err: errors.New("refused")}, true},
		{"timeout after sending", context.DeadlineExceeded, false},
		{"undecodable 201 body", errors.New("invalid character '<'"), false},
	}
	for _, tc := range tests {
		if got := Refused(tc.err); got != tc.want {
			t.Errorf("%s: Refused = %v, want %v", tc.name, got, tc.want)
		}
	}
}
