// Package httpxtest serves canned answers to the tests of fullsend's HTTP
// clients: a server that answers every request with the status, body and
// headers last set, as a broken proxy or a hostile service could.
package httpxtest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// Canned is a loopback server answering every request the same way.
type Canned struct {
	URL string

	mu     sync.Mutex
	status int
	body   []byte
	header http.Header
	seen   []string
}

// NewCanned starts a Canned server answering 200 with no body; tb's
// cleanup stops it.
func NewCanned(tb testing.TB) *Canned {
	tb.Helper()
	c := &Canned{status: http.StatusOK, header: http.Header{}}
	srv := httptest.NewServer(http.HandlerFunc(c.serve))
	tb.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

func (c *Canned) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = append(c.seen, r.Method+" "+r.URL.EscapedPath())
	for k, v := range c.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(c.status)
	_, _ = w.Write(c.body)
}

// Set makes every later answer status and body, with the header pairs h
// (name, value, …; an empty value sends none), and forgets the requests
// seen.
func (c *Canned) Set(status int, body string, h ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status, c.body, c.header, c.seen = status, []byte(body), http.Header{}, nil
	for i := 0; i+1 < len(h); i += 2 {
		if h[i+1] != "" {
			c.header.Set(h[i], h[i+1])
		}
	}
}

// Seen is the requests since the last Set, as "METHOD escaped-path".
func (c *Canned) Seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.seen)
}
