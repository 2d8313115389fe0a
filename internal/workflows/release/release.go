// Package release names the fullsend release assets that generated CI
// downloads (archives and checksums.txt, laid out as the GoReleaser
// configuration names them), decides which version generated CI pins, and
// holds the install script that downloads and verifies an archive.
package release

import (
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/version"
)

// DefaultBaseURL is where GitHub serves the assets of the fullsend
// releases: BASE/<tag>/<asset>.
const DefaultBaseURL = "https://github.com/fullsend-dev/fullsend/releases/download"

// ChecksumsFile is the release asset listing "<sha256>  <archive>" lines.
const ChecksumsFile = "checksums.txt"

// ArchiveName is the archive of version v (with or without the leading v)
// for goos/goarch, as GoReleaser's name_template
// "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" names it.
func ArchiveName(v, goos, goarch string) string {
	return fmt.Sprintf("fullsend_%s_%s_%s.tar.gz", strings.TrimPrefix(v, "v"), goos, goarch)
}

// Mode is how generated CI obtains fullsend.
type Mode string

// Install modes.
const (
	// Download fetches the release archive and verifies its sha256
	// against the release's checksums.txt; no Go toolchain.
	Download Mode = "release"
	// Source builds with `go install module@version` (setup-go, cached);
	// for versions that have no release archive.
	Source Mode = "source"
)

// Pin is what generated CI installs.
type Pin struct {
	Mode    Mode
	Version string // vX.Y.Z for Download; vX.Y.Z or a full 40-hex commit SHA for Source
	BaseURL string // Download only: release asset base URL
}

// Request is what the user asked for; empty fields take defaults.
type Request struct {
	Version string // --version
	Mode    string // --install: "", "release" or "source"
	BaseURL string // --release-url
}

// ErrDevel is returned when no version was given and this binary is not
// a release, so there is nothing to pin by default.
var ErrDevel = errors.New("this fullsend binary is a development build (" +
	"no release version to pin): pass --version vX.Y.Z to install that release, " +
	"or --install source (with --version TAG|COMMIT) to build fullsend from source in CI")

// commitSHA is a full git commit id: the only version besides a release
// tag that names one fixed source tree (a branch, a short SHA or a module
// query such as "latest" can move or become ambiguous).
var commitSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// SourceVersionOK reports whether v pins one fixed source tree: a release
// tag vX.Y.Z or a full 40-hex commit SHA.
func SourceVersionOK(v string) bool { return version.Released(v) || commitSHA.MatchString(v) }

// Resolve turns a request into a pin. The default version is this
// binary's own (version.Get), which must be a release for Download.
func Resolve(r Request) (Pin, error) {
	return resolve(r, version.Get().Version)
}

func resolve(r Request, own string) (Pin, error) {
	p := Pin{Mode: Mode(r.Mode), Version: r.Version, BaseURL: r.BaseURL}
	if p.Mode == "" {
		p.Mode = Download
	}
	if p.Version == "" && version.Released(own) {
		p.Version = own
	}
	switch p.Mode {
	case Download:
		if p.Version == "" {
			return Pin{}, ErrDevel
		}
		if !version.Released(p.Version) {
			return Pin{}, fmt.Errorf("--version %q: a release install needs a release tag vX.Y.Z; "+
				"use --install source to build another version from source", p.Version)
		}
		if p.BaseURL == "" {
			p.BaseURL = DefaultBaseURL
		}
	case Source:
		if p.Version == "" {
			return Pin{}, errors.New("--install source: this binary is a development build; " +
				"pass --version with the tag or commit to build")
		}
		if r.BaseURL != "" {
			return Pin{}, errors.New("--release-url applies to --install release only")
		}
	}
	return p, p.Validate()
}

// Validate reports a pin that generated CI must not carry: a Download of
// anything but a release tag or from a URL that is not https (http only on
// loopback), a Source version that is neither a release tag nor a full
// commit SHA.
func (p Pin) Validate() error {
	switch p.Mode {
	case Download:
		if !version.Released(p.Version) {
			return fmt.Errorf("--version %q: a release install needs a release tag vX.Y.Z", p.Version)
		}
		return checkBaseURL(p.BaseURL)
	case Source:
		if !SourceVersionOK(p.Version) {
			return fmt.Errorf("--version %q: --install source needs a release tag vX.Y.Z or a full 40-hex commit SHA "+
				"(a branch or a short SHA would build whatever it points to at run time); "+
				"pass `git rev-parse %s` to pin that commit", p.Version, p.Version)
		}
		return nil
	}
	return fmt.Errorf("--install %q: want %s or %s", p.Mode, Download, Source)
}

// urlText keeps a base URL free of quotes, spaces and shell syntax.
var urlText = regexp.MustCompile(`^[A-Za-z0-9._~:/%-]+$`)

// checkBaseURL accepts https URLs, and http only on a loopback host (a
// local mirror or a test server).
func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || !urlText.MatchString(s) || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("--release-url %q: want an https URL without credentials, query or quotes", s)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopback(u.Hostname()):
	default:
		return fmt.Errorf("--release-url %q: want https (http only for a loopback host)", s)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Script is the POSIX sh install step. It reads FULLSEND_VERSION (vX.Y.Z),
// FULLSEND_RELEASE_URL and optionally FULLSEND_BIN_DIR (default
// $HOME/.local/bin), downloads the archive for this OS/arch and
// checksums.txt, refuses to install unless the archive's sha256 matches
// its line in checksums.txt, and installs the fullsend binary. On GitHub
// Actions it also adds the directory to GITHUB_PATH.
//
//go:embed install.sh
var Script string
