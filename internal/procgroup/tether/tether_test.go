package tether

import (
	"errors"
	"strings"
	"testing"
)

func TestServe(t *testing.T) {
	tests := []struct {
		name, in string
		kill     int // the group killed; 0: none
		err      bool
	}{
		{"the run died holding a group", "hold 4242\n", 4242, false},
		{"the run died before its agent started", "", 0, false},
		{"the run released its agent", "hold 4242\nrelease\n", 0, false},
		{"the last hold counts", "hold 4242\nhold 4343\n", 4343, false},
		{"a last line without its newline", "hold 4242", 4242, false},
		{"group 1 is never killed", "hold 1\n", 0, true},
		{"group 0 is never killed", "hold 0\n", 0, true},
		{"no negative group", "hold -4242\n", 0, true},
		{"no word for a group", "hold all\n", 0, true},
		{"unknown lines are ignored", "noise\nhold 4242\n", 4242, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var killed []int
			got, err := Serve(strings.NewReader(tt.in), func(pgid int) error { killed = append(killed, pgid); return nil })
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if got != tt.kill || (tt.kill == 0 && len(killed) != 0) || (tt.kill != 0 && (len(killed) != 1 || killed[0] != tt.kill)) {
				t.Fatalf("killed %v (returned %d), want %d", killed, got, tt.kill)
			}
		})
	}
}

func TestServeReportsAFailedKill(t *testing.T) {
	boom := errors.New("boom")
	if _, err := Serve(strings.NewReader("hold 4242\n"), func(int) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

// FuzzServe: whatever the input, a group below 2 is never killed.
func FuzzServe(f *testing.F) {
	for _, s := range []string{"hold 4242\n", "hold 1\n", "hold -1\nrelease\n", "hold 99999999999999999999\n", "release\nhold 5\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		_, _ = Serve(strings.NewReader(in), func(pgid int) error {
			if pgid < 2 {
				t.Fatalf("killed group %d", pgid)
			}
			return nil
		})
	})
}
