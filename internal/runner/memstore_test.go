package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/polllock"
	"github.com/fullsend-dev/fullsend/internal/syncio"
)

// memStore is an in-memory LockStore that records every operation.
type memStore struct {
	mu      sync.Mutex
	props   map[string][]byte
	ops     []memOp
	failGet error // returned by Get when set
	failPut error // returned by Put when set
	// failPuts, when > 0, is how many of the next puts fail (with errStore).
	failPuts int
}

type memOp struct {
	Kind  string // get | put | delete
	At    time.Time
	Value []byte // for put
}

func newMemStore() *memStore { return &memStore{props: map[string][]byte{}} }

func (s *memStore) Get(_ context.Context, issue, prop string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, memOp{Kind: "get", At: time.Now()})
	if s.failGet != nil {
		return nil, false, s.failGet
	}
	v, ok := s.props[issue+"/"+prop]
	return bytes.Clone(v), ok, nil
}

func (s *memStore) Put(_ context.Context, issue, prop string, raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, memOp{Kind: "put", At: time.Now(), Value: bytes.Clone(raw)})
	if s.failPut != nil {
		return s.failPut
	}
	if s.failPuts > 0 {
		s.failPuts--
		return errStore
	}
	s.props[issue+"/"+prop] = bytes.Clone(raw)
	return nil
}

func (s *memStore) Delete(_ context.Context, issue, prop string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, memOp{Kind: "delete", At: time.Now()})
	delete(s.props, issue+"/"+prop)
	return nil
}

// set stores a lock value directly (a poller's write).
func (s *memStore) set(key string, l polllock.Lock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.props[key] = l.Marshal()
}

func (s *memStore) setRaw(key string, raw string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.props[key] = []byte(raw)
}

// value returns the stored lock, if any.
func (s *memStore) value(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.props[key]
	return bytes.Clone(v), ok
}

// count returns how many operations of kind were made.
func (s *memStore) count(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, o := range s.ops {
		if o.Kind == kind {
			n++
		}
	}
	return n
}

// puts returns the values written, in order.
func (s *memStore) puts() []memOp {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []memOp
	for _, o := range s.ops {
		if o.Kind == "put" {
			out = append(out, o)
		}
	}
	return out
}

var errStore = errors.New("store unavailable")

func testLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// logWatch waits for a log record containing want in buf: tests wait on
// seen instead of polling.
type logWatch struct {
	buf  *syncio.Buffer
	want string
	seen <-chan struct{}
}

func watchLog(buf *syncio.Buffer, want string) *logWatch {
	return &logWatch{buf: buf, want: want, seen: buf.When(syncio.Contains(want))}
}

// Write makes the watch the log's sink.
func (w *logWatch) Write(p []byte) (int, error) { return w.buf.Write(p) }

// until calls do until the record was written, again after every second
// without it; after 10s the test fails. A lock written by another owner
// can be overwritten by a refresh that read the lock just before (the
// store has no compare-and-set), so the other owner writes it again.
func (w *logWatch) until(t *testing.T, do func()) {
	for range 10 {
		do()
		select {
		case <-w.seen:
			return
		case <-time.After(time.Second):
		}
	}
	t.Errorf("no log record containing %q", w.want)
}

// lock returns the stored lock, failing the test when there is none.
func (s *memStore) lock(t *testing.T, key string) polllock.Lock {
	t.Helper()
	raw, ok := s.value(key)
	if !ok {
		t.Fatalf("no lock at %s", key)
	}
	l, err := polllock.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
