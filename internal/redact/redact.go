// Package redact removes secret values, and the forms derived from them,
// from text before it is printed: error messages, log lines and text a
// server sent back. Secrets are registered once where they are read (the
// HTTP clients register their tokens when built); everything that prints
// goes through one Set. The logger wrapper is in handler.go.
package redact

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "[REDACTED]"

// MinLen is the shortest value treated as a secret: shorter values would
// mask ordinary words, and no real credential is that short.
const MinLen = 6

// Set is a collection of secret strings. The zero value is ready; it is
// safe for concurrent use.
type Set struct {
	mu      sync.RWMutex
	secrets []string
	r       *strings.Replacer
}

// Add registers each secret with its derived forms: URL-escaped and
// base64-encoded (a secret sent as a Basic credential without a user name).
// Values shorter than MinLen are ignored.
func (s *Set) Add(secrets ...string) {
	var forms []string
	for _, sec := range secrets {
		if len(sec) < MinLen {
			continue
		}
		forms = append(forms, sec, url.QueryEscape(sec), url.PathEscape(sec))
		forms = append(forms, b64(sec)...)
	}
	s.add(forms)
}

// AddBasic registers secret (as Add does) and the Basic credential
// base64(user:secret) in its encodings.
func (s *Set) AddBasic(user, secret string) {
	s.Add(secret)
	if len(secret) >= MinLen && user != "" {
		s.add(b64(user + ":" + secret))
	}
}

func b64(v string) []string {
	b := []byte(v)
	return []string{
		base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
	}
}

func (s *Set) add(forms []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	for _, f := range forms {
		if f != "" && !slices.Contains(s.secrets, f) {
			s.secrets = append(s.secrets, f)
			changed = true
		}
	}
	if !changed {
		return
	}
	// Longest first, so a derived form wins over a secret it contains.
	slices.SortFunc(s.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(s.secrets))
	for _, sec := range s.secrets {
		pairs = append(pairs, sec, Mask)
	}
	s.r = strings.NewReplacer(pairs...)
}

// String returns text with every registered secret replaced by Mask.
func (s *Set) String(text string) string {
	s.mu.RLock()
	r := s.r
	s.mu.RUnlock()
	if r == nil || text == "" {
		return text
	}
	return r.Replace(text)
}

// Error returns err unchanged when its message holds no secret, else an
// error with the redacted message that still unwraps to err (so errors.Is
// and errors.As keep working). Nil stays nil.
func (s *Set) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := s.String(msg); red != msg {
		return &redacted{msg: red, err: err}
	}
	return err
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

var global Set

// Global is the process-wide set that clients register their credentials
// in and that the logger and the HTTP stack redact with.
func Global() *Set { return &global }

// Add registers secrets in the global set.
func Add(secrets ...string) { global.Add(secrets...) }

// AddBasic registers a Basic credential in the global set.
func AddBasic(user, secret string) { global.AddBasic(user, secret) }

// String redacts text with the global set.
func String(text string) string { return global.String(text) }

// Error redacts err with the global set.
func Error(err error) error { return global.Error(err) }
