package syncio

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
)

// writeConcurrently has n goroutines each write line m times to w.
func writeConcurrently(w interface{ Write([]byte) (int, error) }, n, m int, line string) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range m {
				if k, err := w.Write([]byte(line)); k != len(line) || err != nil {
					panic("short write")
				}
			}
		}()
	}
	wg.Wait()
}

func TestBufferConcurrentWrites(t *testing.T) {
	var b Buffer
	done := make(chan struct{})
	go func() { // readers race with writers
		defer close(done)
		for range 100 {
			_ = b.String()
			_ = b.Bytes()
		}
	}()
	writeConcurrently(&b, 8, 100, "abcdefgh\n")
	<-done
	got := b.String()
	if want := strings.Repeat("abcdefgh\n", 800); got != want {
		t.Fatalf("got %d bytes, want %d whole lines", len(got), len(want))
	}
	if !bytes.Equal(b.Bytes(), []byte(got)) {
		t.Fatal("Bytes and String disagree")
	}
}

func TestBufferBytesIsACopy(t *testing.T) {
	var b Buffer
	b.Write([]byte("one"))
	p := b.Bytes()
	b.Write([]byte("two"))
	p[0] = 'X'
	if string(p) != "Xne" || b.String() != "onetwo" {
		t.Fatalf("Bytes shares memory with the buffer: %q, %q", p, b.String())
	}
}

func TestBufferZeroValue(t *testing.T) {
	var b Buffer
	if b.String() != "" || len(b.Bytes()) != 0 {
		t.Fatal("zero Buffer is not empty")
	}
}

func TestWriterConcurrentWrites(t *testing.T) {
	var under bytes.Buffer // not safe on its own
	w := NewWriter(&under)
	writeConcurrently(w, 8, 100, "0123456789\n")
	if want := strings.Repeat("0123456789\n", 800); under.String() != want {
		t.Fatalf("got %d bytes, want %d whole lines", under.Len(), len(want))
	}
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 1, errShort }

var errShort = errors.New("short")

func TestWriterPassesResultThrough(t *testing.T) {
	n, err := NewWriter(failWriter{}).Write([]byte("abc"))
	if n != 1 || err != errShort {
		t.Fatalf("got %d, %v; want the underlying result", n, err)
	}
}

func TestBufferWhen(t *testing.T) {
	var b Buffer
	b.Write([]byte("one\n"))
	now := b.When(Contains("one"))
	later := b.When(Contains("ready\n"))
	count := b.When(func(s string) bool { return strings.Count(s, "x") >= 2 })
	isClosed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	if !isClosed(now) {
		t.Fatal("a condition that already holds is not closed at once")
	}
	steps := []struct {
		write             string
		wantLater, wantCt bool
	}{
		{"x rea", false, false},
		{"dy", false, false},
		{"\n", true, false},
		{"x", true, true},
		{"more", true, true},
	}
	for _, st := range steps {
		b.Write([]byte(st.write))
		if isClosed(later) != st.wantLater || isClosed(count) != st.wantCt {
			t.Fatalf("after %q: later %v count %v, want %v %v", st.write, isClosed(later), isClosed(count), st.wantLater, st.wantCt)
		}
	}
}

func TestBufferWhenConcurrent(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	chs := make([]<-chan struct{}, 8)
	for i := range chs {
		chs[i] = b.When(func(s string) bool { return strings.Count(s, ".") >= 100*(i+1) })
	}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("."))
			}
		}()
	}
	wg.Wait()
	for i, ch := range chs {
		select {
		case <-ch:
		default:
			t.Fatalf("watcher %d not closed after 800 writes", i)
		}
	}
}
