// Package localsteer is the local executor's side of steering
// (docs/steering.md): the executor keeps, per scope, a small file of the
// idempotency keys of the runs that waited behind the scope's active run
// since it started (the last one is the pending slot; the ones before it
// were replaced), in a private directory of its own, and names the file
// to each child `fullsend run` ($FULLSEND_STEER_QUEUE); the child reads
// it as its records (Read). The file is only a pointer: every follow-up
// is read again from its platform and decided before it is delivered.
package localsteer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/fullsend-dev/fullsend/internal/newest"
	"github.com/fullsend-dev/fullsend/internal/steer"
)

// EnvQueue names the file to the child run.
const EnvQueue = "FULLSEND_STEER_QUEUE"

// MaxKeys bounds a file: the newest keys are kept.
const MaxKeys = 64

// maxFile bounds what Read reads.
const maxFile = 256 << 10

// file is the document: {"v":1,"keys":[…]}.
type file struct {
	V    int      `json:"v"`
	Keys []string `json:"keys"`
}

// Dir is the executor's directory of pending files (0700, its own).
type Dir struct {
	path string
	mu   sync.Mutex
}

// NewDir creates a private directory under parent ("" = the system's
// temporary directory).
func NewDir(parent string) (*Dir, error) {
	p, err := os.MkdirTemp(parent, "fullsend-steer-")
	if err != nil {
		return nil, fmt.Errorf("localsteer: %w", err)
	}
	return &Dir{path: p}, nil
}

// Path is the file of scope key.
func (d *Dir) Path(scopeKey string) string {
	sum := sha256.Sum256([]byte(scopeKey))
	return filepath.Join(d.path, hex.EncodeToString(sum[:12])+".json")
}

// Pending records that a run of key idem waits behind scopeKey's active
// run (it fills or replaces the pending slot).
func (d *Dir) Pending(scopeKey, idem string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.Path(scopeKey)
	f, _ := readFile(p)
	f.Keys = append(f.Keys, idem)
	if n := len(f.Keys); n > MaxKeys {
		f.Keys = f.Keys[n-MaxKeys:]
	}
	return writeFile(p, f)
}

// Started forgets scopeKey's pending runs: the pending one became the
// active run.
func (d *Dir) Started(scopeKey string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = os.Remove(d.Path(scopeKey))
}

// Close removes the directory.
func (d *Dir) Close() error { return os.RemoveAll(d.path) }

func writeFile(p string, f file) error {
	f.V = 1
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("localsteer: %w", err)
	}
	return os.Rename(tmp, p)
}

func readFile(p string) (file, error) {
	fh, err := os.Open(p)
	if err != nil {
		return file{}, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxFile+1))
	if err != nil {
		return file{}, err
	}
	return Parse(b)
}

// Parse decodes a pending file.
func Parse(b []byte) (file, error) {
	if len(b) > maxFile {
		return file{}, errors.New("localsteer: the pending file is too large")
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return file{}, fmt.Errorf("localsteer: %w", err)
	}
	if f.V != 1 {
		return file{}, fmt.Errorf("localsteer: version %d", f.V)
	}
	return f, nil
}

// Read is the records of the pending file at p: the last key waits, the
// ones before it were replaced; keys that name no change are left out.
// A missing file is no record.
func Read(p string) ([]steer.Record, error) {
	f, err := readFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []steer.Record
	for i, k := range f.Keys {
		if pos, ok := newest.Change(k); ok {
			out = append(out, steer.Record{Pos: pos, Waiting: i == len(f.Keys)-1})
		}
	}
	return out, nil
}
