// Package pollstate keeps what makes a poller's idle cycles cheap across
// processes: one versioned JSON file per configured poll input in a state
// directory (`fullsend poll --state-dir`), written atomically. The state
// is an optimisation only: a file that is missing, too old, corrupt, of
// another version or of another input is ignored (logged), which costs
// API calls and never loses or doubles a change; every driver re-derives
// from the platform what its state cannot vouch for. See docs/polling.md
// ("State directory").
package pollstate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Version is the version of the state file format. A file of another
// version is ignored.
const Version = 1

// MaxFileBytes bounds a state file that is read (a larger one is ignored).
const MaxFileBytes = 64 << 20

// DirName is the directory under the user cache directory.
const DirName = "fullsend"

// DefaultDir is the default state directory: $XDG_CACHE_HOME/fullsend,
// else the user cache directory's fullsend, as os.UserCacheDir finds it
// but read through getenv ($HOME/.cache on Linux, $HOME/Library/Caches
// on macOS, %LocalAppData% on Windows). It is "" when none is known
// (state is then not kept).
func DefaultDir(getenv func(string) string) string {
	if getenv == nil {
		return ""
	}
	if x := getenv("XDG_CACHE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, DirName)
	}
	var base string
	switch home := getenv("HOME"); runtime.GOOS {
	case "windows":
		base = getenv("LocalAppData")
	case "darwin", "ios":
		if home != "" {
			base = filepath.Join(home, "Library", "Caches")
		}
	default:
		if home != "" {
			base = filepath.Join(home, ".cache")
		}
	}
	if base == "" || !filepath.IsAbs(base) {
		return ""
	}
	return filepath.Join(base, DirName)
}

// None is the --state-dir value that keeps no state.
const None = "none"

// Resolve is the state directory a --state-dir value names: the value,
// DefaultDir when it is empty, "" (no state) for None.
func Resolve(flag string, getenv func(string) string) string {
	switch flag {
	case "":
		return DefaultDir(getenv)
	case None:
		return ""
	}
	return flag
}

// Dir is a state directory. A nil *Dir, or one opened at "", keeps no
// state: its stores load nothing and save nothing.
type Dir struct {
	path string
	log  *slog.Logger
	now  func() time.Time
}

// Open returns the state directory at path ("" keeps no state); it is
// created on the first save. now is the clock a file's age is judged on
// (nil: time.Now).
func Open(path string, log *slog.Logger, now func() time.Time) *Dir {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Dir{path: path, log: log, now: now}
}

// Path is the directory ("" when no state is kept).
func (d *Dir) Path() string {
	if d == nil {
		return ""
	}
	return d.path
}

// For returns the store of one input: kind is its type ("github-poll"),
// identity the settings that make it this input and no other (its base
// URL, repository or project, queries…). Inputs with different
// identities never read each other's state.
func (d *Dir) For(kind string, identity ...string) *Store {
	h := sha256.New()
	for _, p := range append([]string{kind}, identity...) {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	id := hex.EncodeToString(h.Sum(nil))
	return &Store{dir: d, kind: kind, identity: id, file: safeName(kind) + "-" + id[:16] + ".json"}
}

// safeName keeps the letters, digits and dashes of s.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// Store is one input's state file.
type Store struct {
	dir      *Dir
	kind     string
	identity string
	file     string

	mu      sync.Mutex
	claimed claim // Claim's outcome
	release func()
}

// claim is where a store stands with its claim (Claim).
type claim uint8

const (
	claimUntried claim = iota // Claim not called: Save writes (an input that takes no claim)
	claimHeld                 // this process holds it: Save writes
	claimNone                 // refused, or given back: Save writes nothing
)

// ErrUnclaimed is Save's answer on a store whose claim this process
// asked for and does not hold (Claim): another process is the poller the
// state is of, and what this one loaded may be older than what that one
// saves, so it writes nothing (last writer would win).
var ErrUnclaimed = errors.New("another process holds the state file's claim")

// envelope is the file: what it is of, when it was saved, the state.
type envelope struct {
	Version  int             `json:"version"`
	Input    string          `json:"input"`
	Identity string          `json:"identity"`
	SavedAt  time.Time       `json:"saved_at"`
	State    json.RawMessage `json:"state"`
}

// Path is the store's file ("" when no state is kept).
func (s *Store) Path() string {
	if s == nil || s.dir.Path() == "" {
		return ""
	}
	return filepath.Join(s.dir.path, s.file)
}

// Load decodes the saved state into v and reports whether it did. A
// missing file is a debug line; a file older than maxAge (0: any age),
// corrupt, of another version or of another input is a warning; v is
// then left as it was.
func (s *Store) Load(v any, maxAge time.Duration) bool {
	p := s.Path()
	if p == "" {
		return false
	}
	log := s.dir.log.With("input", s.kind, "file", p)
	raw, err := readCapped(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		log.Debug("poll state: none saved yet; this cycle learns it from the API")
		return false
	case err != nil:
		log.Warn("poll state: unreadable; ignored (this cycle costs more calls)", "error", err.Error())
		return false
	}
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(raw))
	why := ""
	switch err := dec.Decode(&env); {
	case err != nil:
		why = "corrupt: " + err.Error()
	case env.Version != Version:
		why = fmt.Sprintf("version %d, want %d", env.Version, Version)
	case env.Input != s.kind || env.Identity != s.identity:
		why = "saved by another input (" + env.Input + ")"
	case maxAge > 0 && s.dir.now().Sub(env.SavedAt) > maxAge:
		why = fmt.Sprintf("stale: saved %s ago, older than %s", s.dir.now().Sub(env.SavedAt).Round(time.Second), maxAge)
	case len(env.State) == 0:
		why = "corrupt: no state"
	default:
		if err := json.Unmarshal(env.State, v); err != nil {
			why = "corrupt: " + err.Error()
		}
	}
	if why != "" {
		log.Warn("poll state: ignored (this cycle costs more calls)", "reason", why)
		return false
	}
	log.Debug("poll state: loaded", "saved_at", env.SavedAt)
	return true
}

// readCapped reads the file at p, refusing one over MaxFileBytes.
func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() || fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("not a regular file of at most %d bytes", MaxFileBytes)
	}
	var b bytes.Buffer
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// Save writes v as the input's state: to a temporary file in the
// directory, synced, then renamed over the old file, so that a reader
// sees the old state or the new one, never a part. Nothing is written
// when no state is kept.
//
// A store whose claim was asked for (Claim) saves only while this
// process holds it: otherwise nothing is written (ErrUnclaimed).
func (s *Store) Save(v any) error {
	p := s.Path()
	if p == "" {
		return nil
	}
	s.mu.Lock()
	unclaimed := s.claimed == claimNone
	s.mu.Unlock()
	if unclaimed {
		return ErrUnclaimed
	}
	state, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("poll state %s: %w", p, err)
	}
	raw, err := json.Marshal(envelope{Version: Version, Input: s.kind, Identity: s.identity, SavedAt: s.dir.now().UTC(), State: state})
	if err != nil {
		return fmt.Errorf("poll state %s: %w", p, err)
	}
	if err := os.MkdirAll(s.dir.path, 0o700); err != nil {
		return fmt.Errorf("poll state: creating %s: %w", s.dir.path, err)
	}
	if err := writeAtomic(p, raw); err != nil {
		return fmt.Errorf("poll state %s: %w", p, err)
	}
	return nil
}

// writeAtomic writes data to p through a synced temporary file and a
// rename, then syncs the directory.
func writeAtomic(p string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err = os.Rename(tmp, p); err != nil {
		return err
	}
	if d, derr := os.Open(filepath.Dir(p)); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// SaveLogged saves v and logs a failure as a warning: a state that
// cannot be written costs the next process calls, nothing else.
func (s *Store) SaveLogged(v any) {
	switch err := s.Save(v); {
	case errors.Is(err, ErrUnclaimed):
		s.dir.log.Info("poll state: not saved: another process holds the state file's claim and saves it", "input", s.kind, "file", s.Path())
	case err != nil:
		s.dir.log.Warn("poll state: not saved (the next process costs more calls)", "input", s.kind, "error", err.Error())
	}
}
