// Package releasetest serves a fake fullsend release over loopback HTTP
// and runs install scripts against it, for the tests of the generators.
package releasetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/workflows/release"
)

// Marker is what the fake fullsend binary prints.
const Marker = "fake fullsend from the test release"

// Release describes the fake release to serve.
type Release struct {
	Version string // tag, e.g. v1.2.3
	// Binary is the content of the archive's fullsend file; nil means a
	// shell script printing Marker.
	Binary []byte
	// WrongChecksum makes checksums.txt list a wrong sha256 for the archive.
	WrongChecksum bool
}

// Serve starts a loopback file server laid out like the GitHub release
// download URLs (BASE/<tag>/<asset>) and returns BASE. The archive is built
// for the OS/arch this test runs on.
func Serve(t testing.TB, r Release) string {
	t.Helper()
	bin := r.Binary
	if bin == nil {
		bin = []byte("#!/bin/sh\necho '" + Marker + "'\n")
	}
	name := release.ArchiveName(r.Version, runtime.GOOS, runtime.GOARCH)
	archive := tarGz(t, map[string][]byte{"fullsend": bin, "README.md": []byte("readme\n")})
	sum := sha256.Sum256(archive)
	if r.WrongChecksum {
		sum = sha256.Sum256(append(archive, 0))
	}
	checksums := fmt.Sprintf("%s  %s\n%s  %s\n", strings.Repeat("0", 64), "fullsend_other.tar.gz", hex.EncodeToString(sum[:]), name)
	files := map[string][]byte{
		"/" + r.Version + "/" + name:                  archive,
		"/" + r.Version + "/" + release.ChecksumsFile: []byte(checksums),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, ok := files[req.URL.Path]
		if !ok {
			http.NotFound(w, req)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func tarGz(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	for _, n := range []string{"README.md", "fullsend"} {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(files[n]))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(files[n]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Result is the outcome of one script run.
type Result struct {
	Output  string // stdout and stderr
	Err     error  // nil when the script exited 0
	BinDir  string // where the script was told to install
	Elapsed time.Duration
}

// Run runs script with bash, with env (NAME=value) added to a minimal
// environment, FULLSEND_BIN_DIR set to a fresh directory and HOME to
// another.
func Run(t testing.TB, script string, env ...string) Result {
	t.Helper()
	return RunWith(t, "bash", script, env...)
}

// RunWith is Run with another shell (e.g. sh, as on an alpine image).
func RunWith(t testing.TB, shell, script string, env ...string) Result {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		t.Skipf("%s not installed", shell)
	}
	dir := t.TempDir()
	res := Result{BinDir: filepath.Join(dir, "bin")}
	cmd := exec.Command(shell, "-c", script)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "FULLSEND_BIN_DIR=" + res.BinDir}, env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	res.Elapsed, res.Output, res.Err = time.Since(start), string(out), err
	return res
}
