package github

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v90/github"
	"go.uber.org/goleak"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseAPIURL(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"", "https://api.github.com/", ""},
		{"https://api.github.com", "https://api.github.com/", ""},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/", ""},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/", ""},
		{"http://[::1]:9/", "http://[::1]:9/", ""},
		{"http://localhost:1/api/v3/", "http://localhost:1/api/v3/", ""},
		{"http://ghe.example.com/api/v3", "", "plain http is allowed only for loopback"},
		{"ftp://x/", "", "scheme must be https"},
		{"https://user:pw@ghe.example.com/", "", "credentials in the URL"},
		{"https:///path", "", "missing host"},
		{"https://x/?a=1", "", "query or fragment"},
		{"://bad", "", "not a URL"},
	}
	for _, tt := range tests {
		u, err := ParseAPIURL(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseAPIURL(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), "pw") {
				t.Errorf("ParseAPIURL(%q) error shows the password: %v", tt.in, err)
			}
			continue
		}
		if err != nil || u.String() != tt.want {
			t.Errorf("ParseAPIURL(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
		}
	}
}

func TestEnvOf(t *testing.T) {
	tests := []struct {
		env      map[string]string
		url, tok string
	}{
		{map[string]string{}, DefaultAPIURL, ""},
		{map[string]string{"GH_TOKEN": "b"}, DefaultAPIURL, "b"},
		{map[string]string{"GITHUB_TOKEN": "a", "GH_TOKEN": "b", "GITHUB_API_URL": "https://ghe/api/v3"}, "https://ghe/api/v3", "a"},
	}
	for _, tt := range tests {
		e := EnvOf(func(k string) string { return tt.env[k] })
		if e.APIURL != tt.url || e.Token != tt.tok {
			t.Errorf("EnvOf(%v) = %+v", tt.env, e)
		}
	}
}

func TestSplitRepo(t *testing.T) {
	tests := []struct{ in, owner, repo string }{
		{"acme/platform", "acme", "platform"},
		{"acme", "", ""},
		{"/x", "", ""},
		{"x/", "", ""},
		{"a/b/c", "", ""},
	}
	for _, tt := range tests {
		o, r, err := SplitRepo(tt.in)
		if o != tt.owner || r != tt.repo || (err == nil) != (tt.owner != "") {
			t.Errorf("SplitRepo(%q) = %q %q %v", tt.in, o, r, err)
		}
	}
}

// TestClientSendsTokenAndBoundsBodies depends on no timing: the normal
// calls get a deadline far beyond any load, and the "slow" answer never
// comes, so only the client's own deadline can end that call.
func TestClientSendsTokenAndBoundsBodies(t *testing.T) {
	var auth, agent string
	big := strings.Repeat("x", MaxResponseBytes+10)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, agent = r.Header.Get("Authorization"), r.Header.Get("User-Agent")
		switch r.URL.Path {
		case "/repos/a/b":
			_, _ = io.WriteString(w, `{"full_name":"a/b","default_branch":"trunk"}`)
		case "/big":
			_, _ = io.WriteString(w, big)
		case "/redirect":
			http.Redirect(w, r, "http://127.0.0.2:1/elsewhere", http.StatusFound)
		case "/slow":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := NewClient(srv.URL, "tok123", ClientOptions{Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Client().CloseIdleConnections()
	repo, _, err := c.Repositories.Get(context.Background(), "a", "b")
	if err != nil || repo.GetDefaultBranch() != "trunk" {
		t.Fatalf("Get = %v, %v", repo, err)
	}
	if auth != "Bearer tok123" || !strings.HasPrefix(agent, "fullsend") {
		t.Errorf("Authorization %q, User-Agent %q", auth, agent)
	}
	get := func(c *gogithub.Client, path string) error {
		req, _ := c.NewRequest(context.Background(), "GET", strings.TrimPrefix(path, "/"), nil)
		_, err := c.Do(req, io.Discard)
		return err
	}
	if err := get(c, "/big"); err == nil || !strings.Contains(err.Error(), "exceeds") || !errors.Is(err, httpx.ErrTooLarge) {
		t.Errorf("oversized body: %v", err)
	}
	if err := get(c, "/redirect"); err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("cross-origin redirect: %v", err)
	}
	short, err := NewClient(srv.URL, "tok123", ClientOptions{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer short.Client().CloseIdleConnections()
	if err := get(short, "/slow"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("unanswered request: %v, want the client's deadline", err)
	}
}

func FuzzParseAPIURL(f *testing.F) {
	for _, s := range []string{"", "https://api.github.com", "http://127.0.0.1:1", "http://evil.example/", "https://u:p@h/", "%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseAPIURL(s)
		if err != nil {
			return
		}
		if !strings.HasSuffix(u.Path, "/") {
			t.Fatalf("%q: path %q lacks trailing slash", s, u.Path)
		}
		if u.Scheme == "http" && !httpx.IsLoopback(u.Hostname()) {
			t.Fatalf("%q: plain http to non-loopback %q accepted", s, u.Host)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("%q: scheme %q accepted", s, u.Scheme)
		}
	})
}

func TestParseAPIURLErrorsHideSecrets(t *testing.T) {
	for _, raw := range []string{
		"https://api.example.com/?access_token=SEKRIT",
		"https://api.example.com/#SEKRIT",
		"http://example.com/x?token=SEKRIT",
		"ftp://host/?SEKRIT",
	} {
		_, err := ParseAPIURL(raw)
		if err == nil {
			t.Fatalf("%s accepted", raw)
		}
		if strings.Contains(err.Error(), "SEKRIT") {
			t.Errorf("error repeats a secret: %v", err)
		}
	}
}

// TestEchoedCredentialsAreRedacted: a server that repeats the credential
// in its 401/500 body must not make fullsend print it, in the error or in
// a retry log line.
func TestEchoedCredentialsAreRedacted(t *testing.T) {
	const tok = "ghp_S3CRETtoken42"
	for _, status := range []int{http.StatusUnauthorized, http.StatusInternalServerError} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"message":"Bad credentials: ` + r.Header.Get("Authorization") + `"}`))
		}))
		c, err := NewClient(srv.URL, tok, ClientOptions{Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		p := Policy{MaxRetries: 2, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
			OnRetry: func(f *Failure, wait time.Duration) {
				log.Info("retrying", "attempt", f.Attempts, "wait", wait, "error", f.Err.Error())
			}}
		_, err = Call(context.Background(), p, func(ctx context.Context) (*gogithub.Response, error) {
			_, resp, err := c.Repositories.Get(ctx, "a", "b")
			return resp, err
		})
		c.Client().CloseIdleConnections()
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), "Bad credentials") {
			t.Fatalf("HTTP %d: err = %v, want the server's message", status, err)
		}
		if status == http.StatusInternalServerError && !strings.Contains(logs.String(), "Bad credentials") {
			t.Fatalf("no retry logged: %s", logs.String())
		}
		for _, out := range []string{err.Error(), logs.String()} {
			if strings.Contains(out, tok) || strings.Contains(out, "Bearer "+tok) {
				t.Errorf("HTTP %d: credential printed: %s", status, out)
			}
		}
	}
}

// TestAPIURLCredentialsNeverPrinted: credentials written into
// GITHUB_API_URL stay out of the error, however broken the URL is.
func TestAPIURLCredentialsNeverPrinted(t *testing.T) {
	for _, raw := range []string{
		"https://u:T0KEN-xyz@api.example/%zz",
		"https://u:T0KEN-xyz@api example/",
		"https://u:T0KEN-xyz@[::1/",
		"https://u:T0KEN-xyz@api.example/",
		"https://T0KEN-xyz@api.example:port/",
		"http://u:T0KEN-xyz@example.com/",
		"https://u:T0KEN/xyz@api.example/",
	} {
		env := EnvOf(func(k string) string {
			if k == "GITHUB_API_URL" {
				return raw
			}
			return ""
		})
		_, err := NewClient(env.APIURL, "", ClientOptions{})
		if err == nil {
			t.Errorf("%q accepted", raw)
			continue
		}
		if strings.Contains(err.Error(), "T0KEN") || strings.Contains(err.Error(), "xyz") {
			t.Errorf("%q: error shows the credentials: %v", raw, err)
		}
		if !strings.Contains(err.Error(), "GITHUB_API_URL") {
			t.Errorf("%q: error does not name the variable: %v", raw, err)
		}
	}
}
