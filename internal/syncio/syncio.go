// Package syncio provides small writers that are safe for concurrent use.
//
// Buffer is a bytes.Buffer guarded by a mutex: Write, String and Bytes may be
// called from any number of goroutines at once, and each Write is applied
// whole, never interleaved with another. Its zero value is an empty buffer
// ready to use; it must not be copied after first use. When lets a test
// wait for what was written instead of polling: it returns a channel that
// is closed once a condition holds for the contents, checked at once and
// after every Write.
//
// Writer serialises the writes of many goroutines to one underlying
// io.Writer: at most one Write of the underlying writer runs at a time, and
// each call passes p through unchanged, returning the underlying result.
package syncio

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync"
)

// Buffer is a bytes.Buffer that is safe for concurrent use.
type Buffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	watch []watcher
}

type watcher struct {
	cond func(string) bool
	ch   chan struct{}
}

// Write appends p to the buffer and closes the channels of the When
// conditions that now hold. It always returns len(p), nil.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.b.Write(p)
	if len(b.watch) > 0 {
		s := b.b.String()
		b.watch = slices.DeleteFunc(b.watch, func(w watcher) bool { return w.fire(s) })
	}
	return n, err
}

// When returns a channel that is closed once cond holds for the contents
// written so far: at once if it holds now, else after the Write that makes
// it hold. cond runs with the buffer locked and must not use it.
func (b *Buffer) When(cond func(string) bool) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := watcher{cond: cond, ch: make(chan struct{})}
	if !w.fire(b.b.String()) {
		b.watch = append(b.watch, w)
	}
	return w.ch
}

// Contains is the When condition "the contents contain sub".
func Contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

func (w watcher) fire(s string) bool {
	if !w.cond(s) {
		return false
	}
	close(w.ch)
	return true
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
