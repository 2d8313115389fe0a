package redact

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io/fs"
	"log/slog"
	"net/url"
	"strings"
	"testing"
)

func TestSetRemovesSecretsAndDerivedForms(t *testing.T) {
	const tok = "S3CRET-tok/+="
	var s Set
	s.AddBasic("bot@example.com", tok)
	s.Add("short") // below MinLen: ignored
	basic := base64.StdEncoding.EncodeToString([]byte("bot@example.com:" + tok))
	tests := []struct{ in, want string }{
		{"HTTP 401: bad credentials: Bearer " + tok, "HTTP 401: bad credentials: Bearer " + Mask},
		{"Authorization: Basic " + basic, "Authorization: Basic " + Mask},
		{"https://u:" + url.QueryEscape(tok) + "@api.example/", "https://u:" + Mask + "@api.example/"},
		{"raw " + base64.RawURLEncoding.EncodeToString([]byte("bot@example.com:"+tok)), "raw " + Mask},
		{"a short word stays", "a short word stays"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := s.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEmptySetAndErrors(t *testing.T) {
	var s Set
	if got := s.String("nothing registered"); got != "nothing registered" {
		t.Errorf("empty set changed text: %q", got)
	}
	if s.Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
	s.Add("hunter2-secret")
	plain := errors.New("no secret here")
	if s.Error(plain) != plain {
		t.Error("an error without secrets should be returned unchanged")
	}
	err := s.Error(&fs.PathError{Op: "open", Path: "hunter2-secret", Err: fs.ErrNotExist})
	if strings.Contains(err.Error(), "hunter2") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("redacted error %q (still unwraps: %v)", err, errors.Is(err, fs.ErrNotExist))
	}
}

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

func TestHandlerRedactsEveryPart(t *testing.T) {
	const tok = "very-secret-token"
	var s Set
	s.AddBasic("e@x.io", tok)
	basic := base64.StdEncoding.EncodeToString([]byte("e@x.io:" + tok))
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		var h slog.Handler = slog.NewTextHandler(&buf, nil)
		if format == "json" {
			h = slog.NewJSONHandler(&buf, nil)
		}
		log := slog.New(Handler(h, &s)).With("auth", "Basic "+basic).WithGroup("g")
		log.Info("calling with Bearer "+tok, "err", errors.New("echo: "+tok), "url", stringer{"https://u:" + tok + "@h/"},
			slog.Group("inner", "v", tok), "n", 3, "kept", "fine")
		out := buf.String()
		if strings.Contains(out, tok) || strings.Contains(out, basic) || strings.Contains(out, "Bearer "+tok) {
			t.Errorf("%s log leaks a secret: %s", format, out)
		}
		if strings.Count(out, Mask) != 5 || !strings.Contains(out, "fine") || !strings.Contains(out, "3") {
			t.Errorf("%s log: want 5 masks and the other values kept: %s", format, out)
		}
	}
}
