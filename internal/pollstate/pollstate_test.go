package pollstate_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/pollstate"
)

type state struct {
	N    int               `json:"n"`
	Tags map[string]string `json:"tags"`
}

type world struct {
	dir string
	now time.Time
	log bytes.Buffer
}

func newWorld(t *testing.T) *world {
	return &world{dir: t.TempDir(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (w *world) open() *pollstate.Dir {
	log := slog.New(slog.NewTextHandler(&w.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return pollstate.Open(w.dir, log, func() time.Time { return w.now })
}

func TestRoundTrip(t *testing.T) {
	w := newWorld(t)
	s := w.open().For("github-poll", "https://api.github.com", "o/r")
	want := state{N: 7, Tags: map[string]string{"a": "b"}}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	var got state
	if !w.open().For("github-poll", "https://api.github.com", "o/r").Load(&got, time.Hour) {
		t.Fatalf("not loaded; log:\n%s", w.log.String())
	}
	if got.N != 7 || got.Tags["a"] != "b" {
		t.Fatalf("got %+v", got)
	}
	ents, _ := os.ReadDir(w.dir)
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "github-poll-") || !strings.HasSuffix(ents[0].Name(), ".json") {
		t.Fatalf("files %v: want one github-poll-<hash>.json and no temporary file", ents)
	}
	if err := s.Save(state{N: 8}); err != nil { // replaces, leaves no temporary file
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(w.dir); len(ents) != 1 {
		t.Fatalf("files after a second save: %v", ents)
	}
}

// TestIgnored: every state a store cannot vouch for is ignored with a
// line saying why, and leaves the value as it was.
func TestIgnored(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(w *world, s *pollstate.Store)
		maxAge time.Duration
		level  string
		reason string
	}{
		{name: "missing", setup: func(*world, *pollstate.Store) {}, level: "DEBUG", reason: "none saved yet"},
		{name: "stale", setup: func(w *world, s *pollstate.Store) {
			_ = s.Save(state{N: 1})
			w.now = w.now.Add(3 * time.Hour)
		}, maxAge: 2 * time.Hour, level: "WARN", reason: "stale"},
		{name: "corrupt", setup: func(_ *world, s *pollstate.Store) {
			_ = os.WriteFile(s.Path(), []byte(`{"version":1,"input":`), 0o600)
		}, level: "WARN", reason: "corrupt"},
		{name: "corrupt state", setup: func(w *world, s *pollstate.Store) {
			_ = s.Save(state{N: 1})
			b, _ := os.ReadFile(s.Path())
			b = bytes.Replace(b, []byte(`"n":1`), []byte(`"n":"x"`), 1)
			_ = os.WriteFile(s.Path(), b, 0o600)
		}, level: "WARN", reason: "corrupt"},
		{name: "another version", setup: func(_ *world, s *pollstate.Store) {
			_ = s.Save(state{N: 1})
			b, _ := os.ReadFile(s.Path())
			_ = os.WriteFile(s.Path(), bytes.Replace(b, []byte(`"version":1`), []byte(`"version":2`), 1), 0o600)
		}, level: "WARN", reason: "version 2"},
		{name: "another input", setup: func(w *world, s *pollstate.Store) {
			other := w.open().For("github-poll", "https://api.github.com", "o/other")
			_ = other.Save(state{N: 1})
			_ = os.Rename(other.Path(), s.Path()) // e.g. a cache restored under the wrong name
		}, level: "WARN", reason: "another input"},
		{name: "not a file", setup: func(_ *world, s *pollstate.Store) { _ = os.Mkdir(s.Path(), 0o700) }, level: "WARN", reason: "unreadable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			s := w.open().For("github-poll", "https://api.github.com", "o/r")
			tc.setup(w, s)
			w.log.Reset()
			got := state{N: 42}
			if w.open().For("github-poll", "https://api.github.com", "o/r").Load(&got, tc.maxAge) {
				t.Fatal("loaded")
			}
			if got.N != 42 {
				t.Fatalf("value changed to %+v", got)
			}
			if l := w.log.String(); !strings.Contains(l, "level="+tc.level) || !strings.Contains(l, tc.reason) {
				t.Fatalf("log %q: want a %s line with %q", l, tc.level, tc.reason)
			}
		})
	}
}

func TestNoDir(t *testing.T) {
	for _, d := range []*pollstate.Dir{nil, pollstate.Open("", nil, nil)} {
		s := d.For("gitlab-poll", "x")
		if s.Path() != "" || s.Save(state{N: 1}) != nil {
			t.Fatal("a store without a directory saved")
		}
		var v state
		if s.Load(&v, 0) {
			t.Fatal("a store without a directory loaded")
		}
	}
}

func TestSaveFailureLogged(t *testing.T) {
	w := newWorld(t)
	file := filepath.Join(w.dir, "file")
	_ = os.WriteFile(file, nil, 0o600)
	log := slog.New(slog.NewTextHandler(&w.log, nil))
	s := pollstate.Open(filepath.Join(file, "sub"), log, nil).For("jira-poll", "x")
	if s.Save(state{}) == nil {
		t.Fatal("saved under a file")
	}
	s.SaveLogged(state{})
	if !strings.Contains(w.log.String(), "not saved") {
		t.Fatalf("log %q", w.log.String())
	}
}

func TestDefaultDir(t *testing.T) {
	env := map[string]string{"XDG_CACHE_HOME": "/var/cache/x"}
	if got := pollstate.DefaultDir(func(k string) string { return env[k] }); got != "/var/cache/x/fullsend" {
		t.Fatalf("got %q", got)
	}
	env["XDG_CACHE_HOME"] = "relative" // not absolute: ignored, as the XDG spec says
	if got := pollstate.DefaultDir(func(k string) string { return env[k] }); got != "" {
		t.Fatalf("got %q, want none without $HOME", got)
	}
	env["HOME"] = "/home/u"
	if got := pollstate.DefaultDir(func(k string) string { return env[k] }); got != "/home/u/.cache/fullsend" && runtime.GOOS == "linux" {
		t.Fatalf("got %q", got)
	}
	if pollstate.Resolve("none", func(k string) string { return env[k] }) != "" || pollstate.Resolve("/s", nil) != "/s" ||
		pollstate.Resolve("", func(k string) string { return env[k] }) == "" {
		t.Fatal("Resolve")
	}
}

func TestFingerprint(t *testing.T) {
	a := pollstate.Fingerprint("https://x", "tok1")
	if a == pollstate.Fingerprint("https://x", "tok2") || a == pollstate.Fingerprint("https://xtok1") || strings.Contains(a, "tok1") {
		t.Fatal("fingerprints collide or reveal the credential")
	}
	acct := &pollstate.Account{Credential: a, ID: "me"}
	if id, ok := acct.Of(a); !ok || id != "me" {
		t.Fatal("own credential not recognised")
	}
	if _, ok := acct.Of(pollstate.Fingerprint("https://x", "tok2")); ok {
		t.Fatal("another credential's account used")
	}
	if _, ok := (*pollstate.Account)(nil).Of(a); ok {
		t.Fatal("nil account used")
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"input":"github-poll","identity":"x","saved_at":"2026-03-01T12:00:00Z","state":{"n":1}}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte{0xff, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		s := pollstate.Open(dir, nil, nil).For("github-poll", "x")
		if err := os.WriteFile(s.Path(), data, 0o600); err != nil {
			t.Fatal(err)
		}
		var v state
		_ = s.Load(&v, time.Hour)
	})
}
