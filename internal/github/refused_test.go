package github

import (
	"errors"
	"testing"
)

// Only a definite refusal, or a request that never reached a
// connection, is "not done"; every other failure may have taken effect.
func TestFailureRefused(t *testing.T) {
	tests := []struct {
		name string
		f    Failure
		want bool
	}{
		{"422", Failure{Class: Permanent, Status: 422}, true},
		{"404", Failure{Class: Permanent, Status: 404}, true},
		{"403 without a rate limit", Failure{Class: Permanent, Status: 403}, true},
		{"401", Failure{Class: Permanent, Status: 401}, true},
		{"403 rate limit", Failure{Class: Retryable, Status: 403}, false},
		{"429", Failure{Class: Retryable, Status: 429}, false},
		{"408", Failure{Class: Permanent, Status: 408}, false},
		{"502", Failure{Class: Retryable, Status: 502}, false},
		{"no connection", Failure{Class: Retryable}, true},
		{"no answer after sending", Failure{Class: Ambiguous}, false},
		{"200 whose body could not be read", Failure{Class: Permanent, Status: 200}, false},
		{"cancelled before sending", Failure{Class: Permanent}, false},
	}
	for _, tc := range tests {
		tc.f.Err = errors.New("x")
		if got := tc.f.Refused(); got != tc.want {
			t.Errorf("%s: Refused = %v, want %v", tc.name, got, tc.want)
		}
	}
}
