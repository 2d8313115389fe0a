// Package jsonin is the `json` input driver: one NormalizedEvent v1
// document from a file or standard input, validated before the core sees it.
package jsonin

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/fullsend-dev/fullsend/internal/drivername"
	"github.com/fullsend-dev/fullsend/internal/event"
)

// Driver reads one NormalizedEvent.
type Driver struct {
	path  string // "-" means stdin
	stdin io.Reader
}

// New reads from path, or from stdin when path is "-" or empty.
func New(path string, stdin io.Reader) *Driver {
	if path == "" {
		path = "-"
	}
	return &Driver{path: path, stdin: stdin}
}

// Name implements input.Driver.
func (d *Driver) Name() string { return drivername.JSONIn }

// Read implements input.Driver. Errors name the file (or "stdin").
func (d *Driver) Read(context.Context) (*event.Event, error) {
	name, r := "stdin", d.stdin
	if d.path != "-" {
		f, err := os.Open(d.path)
		if err != nil {
			return nil, fmt.Errorf("event file: %w", err)
		}
		defer f.Close()
		name, r = d.path, f
	}
	ev, err := event.Read(r, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ev, nil
}
