package githubsim

// Conditional requests: every GET answer carries an ETag derived from its
// body (and single objects a Last-Modified); a request whose
// If-None-Match (or, without it, If-Modified-Since) still matches gets
// 304 Not Modified without a body and, as on GitHub, without counting
// against the rate limit.

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// etagOf is the weak entity tag of body.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `W/"` + hex.EncodeToString(sum[:16]) + `"`
}

// matchesETag reports whether the If-None-Match list names tag ("*" or
// any tag, compared weakly).
func matchesETag(ifNoneMatch, tag string) bool {
	weak := func(t string) string { return strings.TrimPrefix(strings.TrimSpace(t), "W/") }
	for _, t := range strings.Split(ifNoneMatch, ",") {
		if strings.TrimSpace(t) == "*" || weak(t) == weak(tag) {
			return true
		}
	}
	return false
}

// notModified reports whether the request's validators match the answer's
// headers. If-None-Match, when present, decides alone.
func notModified(r *http.Request, h http.Header) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return matchesETag(inm, h.Get("ETag"))
	}
	ims, lm := r.Header.Get("If-Modified-Since"), h.Get("Last-Modified")
	if ims == "" || lm == "" {
		return false
	}
	since, err1 := http.ParseTime(ims)
	modified, err2 := http.ParseTime(lm)
	return err1 == nil && err2 == nil && !modified.After(since)
}

// serveGET answers a GET: it renders h's answer, tags a 200 with an ETag,
// answers 304 when the request's validators still match (no rate-limit
// cost), and otherwise counts the request against the rate limit and
// sends the answer (after the fault f, when it applies After).
func (s *Server) serveGET(w http.ResponseWriter, r *http.Request, h func(http.ResponseWriter, *http.Request), f *Fault) {
	rec := record(h, r)
	if rec.status == http.StatusOK {
		rec.header.Set("ETag", etagOf(rec.body.Bytes()))
		if notModified(r, rec.header) {
			s.mu.Lock()
			s.notModified++
			s.mu.Unlock()
			s.rate(w, false)
			for _, k := range []string{"ETag", "Last-Modified"} {
				if v := rec.header.Get(k); v != "" {
					w.Header().Set(k, v)
				}
			}
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	if !s.rateLimit(w) {
		return
	}
	if f != nil && f.After && !s.applyFault(w, r, f) {
		return
	}
	rec.replay(w)
}

// Requests returns how many API requests the server received (all
// endpoints, any answer).
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Writes returns how many requests could have changed the world: every
// method but GET and HEAD, counted as they arrive (refused ones too).
func (s *Server) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// NotModified returns how many requests were answered 304 Not Modified.
func (s *Server) NotModified() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notModified
}

// RatePointsUsed returns how many requests counted against the primary
// rate limit, over all windows (every answer but 304s and refusals before
// the limit: bad credentials and faults injected before the action).
func (s *Server) RatePointsUsed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.points
}
