package cli

import (
	"strings"
	"testing"
)

func TestDemoRejectsBadPollerCounts(t *testing.T) {
	for _, n := range []string{"0", "-1", "1000000"} {
		code, out, errs := runCLI(t, "", nil, "demo", "--pollers", n)
		if code != 2 || out != "" || !strings.Contains(errs, "--pollers "+n+": want 1 to 64") {
			t.Errorf("--pollers %s: exit %d, stdout %q, stderr %q", n, code, out, errs)
		}
	}
}
