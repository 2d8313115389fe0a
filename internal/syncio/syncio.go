// Package syncio provides small writers that are safe for concurrent use.
//
// Buffer is a bytes.Buffer guarded by a mutex: Write, String and Bytes may be
// called from any number of goroutines at once, and each Write is applied
// whole, never interleaved with another. Its zero value is an empty buffer
// ready to use; it must not be copied after first use.
//
// Writer serialises the writes of many goroutines to one underlying
// io.Writer: at most one Write of the underlying writer runs at a time, and
// each call passes p through unchanged, returning the underlying result.
package syncio

import (
	"bytes"
	"io"
	"sync"
)

// Buffer is a bytes.Buffer that is safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer. It always returns len(p), nil.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns the contents written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Bytes returns a copy of the contents written so far; later writes do not
// change it.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.b.Bytes())
}

// Writer serialises writes to an underlying io.Writer.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a Writer that forwards each Write to w, one at a time.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p to the underlying writer while holding the lock.
func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
