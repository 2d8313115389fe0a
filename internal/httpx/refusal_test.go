package httpx

import "testing"

func TestRefusal(t *testing.T) {
	tests := []struct {
		status int
		want   bool
	}{
		{200, false}, {204, false}, {301, false}, {400, true}, {401, true}, {403, true}, {404, true},
		{408, false}, {409, true}, {422, true}, {429, false}, {499, true}, {500, false}, {502, false}, {0, false},
	}
	for _, tc := range tests {
		if got := Refusal(tc.status); got != tc.want {
			t.Errorf("Refusal(%d) = %v, want %v", tc.status, got, tc.want)
		}
	}
}
