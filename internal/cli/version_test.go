package cli

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	code, out, errs := runCLI(t, "", nil, "version")
	if code != 0 || !strings.HasPrefix(out, "fullsend ") || !strings.Contains(out, runtime.Version()) {
		t.Fatalf("text: exit %d, %q %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "", nil, "version", "-o", "json")
	var v versionInfo
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Go != runtime.Version() || v.Version == "" ||
		v.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Fatalf("json: exit %d, %q %s", code, out, errs)
	}
	if code, _, _ = runCLI(t, "", nil, "version", "-o", "xml"); code != ExitUsage {
		t.Errorf("-o xml: exit %d, want 2", code)
	}
}
