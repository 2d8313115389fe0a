// Package version reports which fullsend this binary is: the module
// version, the commit and build date, and the Go toolchain. Release builds
// set Version, Commit and Date through -ldflags -X; other builds fall back
// to what the Go toolchain recorded in the binary (debug.ReadBuildInfo).
package version

import (
	"runtime"
	"runtime/debug"
)

// Set at release time with
// -ldflags "-X github.com/fullsend-dev/fullsend/internal/version.Version=v1.2.3 ...".
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// Info describes this build.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	Modified  bool   `json:"modified,omitempty"`
}

// Get returns this build's Info. Fields not set by -ldflags come from the
// build information; a development build reports version "(devel)".
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return from(bi, Version, Commit, Date)
}

func from(bi *debug.BuildInfo, ver, commit, date string) Info {
	in := Info{Version: ver, Commit: commit, Date: date, GoVersion: runtime.Version()}
	if bi == nil {
		if in.Version == "" {
			in.Version = "(devel)"
		}
		return in
	}
	if in.Version == "" {
		in.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if in.Commit == "" {
				in.Commit = s.Value
			}
		case "vcs.time":
			if in.Date == "" {
				in.Date = s.Value
			}
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	return in
}

// Released reports whether v names a tagged release (vX.Y.Z with no
// pseudo-version suffix), the only kind an install step can download.
func Released(v string) bool {
	if len(v) < 6 || v[0] != 'v' || v == "(devel)" {
		return false
	}
	dots := 0
	for _, c := range v[1:] {
		switch {
		case c == '.':
			dots++
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return dots == 2
}
