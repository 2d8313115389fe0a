package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// eventFile is the NormalizedEvent written for the agent: event.json (0600)
// inside a fresh private directory (0700). Remove deletes both.
type eventFile struct {
	dir  string
	Path string
	// EntityPath is entity.json beside it, for a run with an entity
	// (writeEntity); "" otherwise.
	EntityPath string
}

// writeEventFile writes ev as compact JSON under parent ("" = the system
// temporary directory).
func writeEventFile(parent string, ev *event.Event) (*eventFile, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode event for the agent: %w", err)
	}
	dir, err := os.MkdirTemp(parent, "fullsend-run-")
	if err != nil {
		return nil, fmt.Errorf("create private directory for the event file: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("protect %s: %w", dir, err)
	}
	path := filepath.Join(dir, "event.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("write event file %s: %w", path, err)
	}
	return &eventFile{dir: dir, Path: path}, nil
}

// Remove deletes the file and its directory.
func (f *eventFile) Remove() error { return os.RemoveAll(f.dir) }

// writeEntity writes en as compact JSON to entity.json (0600) in the
// event file's private directory; nothing for a nil entity.
func (f *eventFile) writeEntity(en *entity.Entity) error {
	if en == nil {
		return nil
	}
	b, err := json.Marshal(en)
	if err != nil {
		return fmt.Errorf("encode entity for the agent: %w", err)
	}
	path := filepath.Join(f.dir, "entity.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write entity file %s: %w", path, err)
	}
	f.EntityPath = path
	return nil
}
