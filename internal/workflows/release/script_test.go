package release_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/workflows/release"
	"github.com/fullsend-dev/fullsend/internal/workflows/release/releasetest"
)

// TestScriptPOSIX runs the install script with sh (dash or busybox ash
// where bash is absent, as on the alpine image) with a binary of realistic
// size (this test binary), and logs the install time against the loopback
// server.
func TestScriptPOSIX(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		wrong  bool
		wantOK bool
	}{{"verified", false, true}, {"wrong checksum", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			base := releasetest.Serve(t, releasetest.Release{Version: "v2.0.1", Binary: bin, WrongChecksum: tc.wrong})
			res := releasetest.RunWith(t, "sh", release.Script, "FULLSEND_VERSION=v2.0.1", "FULLSEND_RELEASE_URL="+base)
			t.Logf("install of a %d MB binary took %v", len(bin)>>20, res.Elapsed)
			if (res.Err == nil) != tc.wantOK {
				t.Fatalf("err %v, output %q", res.Err, res.Output)
			}
			got, err := os.ReadFile(filepath.Join(res.BinDir, "fullsend"))
			if tc.wantOK != (err == nil && bytes.Equal(got, bin)) {
				t.Fatalf("installed binary present=%v equal=%v, want installed=%v", err == nil, bytes.Equal(got, bin), tc.wantOK)
			}
		})
	}
}
