package ghactions

import (
	"strings"
	"testing"
)

func TestValidateCron(t *testing.T) {
	for _, tc := range []struct {
		expr, wantErr string
	}{
		{"*/5 * * * *", ""},
		{"0 * * * *", ""},
		{"59 * * * *", ""},
		{"0,30 9-17 * * 1-5", ""},
		{"0-55/5 * 1,15 1-12/3 0", ""},
		{"58 0 * * *", ""},     // one hour: no wrap
		{"0,58 */2 * * *", ""}, // hours not consecutive: wrap is 62 minutes
		{"* * * * *", "1 minute apart"},
		{"*/4 * * * *", "4 minutes apart"},
		{"0,58 * * * *", "2 minutes apart"}, // wraps into the next hour
		{"0,58 23,0 * * *", "2 minutes apart"},
		{"61 * * * *", "minute field"},
		{"0 24 * * *", "hour field"},
		{"0 0 0 * *", "day of month field"},
		{"0 0 * 13 *", "month field"},
		{"0 0 * * 7", "day of week field"},
		{"0 0 * * MON", "day of week field"},
		{"*/0 * * * *", "step"},
		{"5/10 * * * *", "needs * or a range"},
		{"10-5 * * * *", "backwards"},
		{"*/5 * * *", "five fields"},
		{"", "five fields"},
	} {
		err := ValidateCron(tc.expr)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("ValidateCron(%q) = %v, want nil", tc.expr, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ValidateCron(%q) = %v, want %q", tc.expr, err, tc.wantErr)
		}
	}
}

func FuzzValidateCron(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "0-59/7 1,2 * * *", "a b c d e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { _ = ValidateCron(s) })
}
