package version

import (
	"runtime/debug"
	"testing"
)

func TestFrom(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	tests := []struct {
		name                string
		bi                  *debug.BuildInfo
		ver, commit, date   string
		wantVer, wantCommit string
		wantDate            string
		wantModified        bool
	}{
		{"build info", bi, "", "", "", "v1.2.3", "abc", "2026-01-02T03:04:05Z", true},
		{"ldflags win", bi, "v9.9.9", "def", "2027", "v9.9.9", "def", "2027", true},
		{"no build info", nil, "", "", "", "(devel)", "", "", false},
		{"empty main version", &debug.BuildInfo{}, "", "", "", "(devel)", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := from(tc.bi, tc.ver, tc.commit, tc.date)
			if in.Version != tc.wantVer || in.Commit != tc.wantCommit || in.Date != tc.wantDate || in.Modified != tc.wantModified {
				t.Fatalf("got %+v", in)
			}
			if in.GoVersion == "" {
				t.Fatal("no Go version")
			}
		})
	}
}

func TestReleased(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.2.3": true, "v10.20.30": true, "(devel)": false, "": false, "v1.2": false,
		"v0.0.0-20260101000000-abcdef123456": false, "1.2.3": false, "v1.2.3-rc.1": false,
	} {
		if got := Released(v); got != want {
			t.Errorf("Released(%q) = %v, want %v", v, got, want)
		}
	}
}
