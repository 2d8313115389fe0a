package httpx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestParseBaseURL(t *testing.T) {
	tests := []struct {
		in, want, errPart string
	}{
		{"https://acme.atlassian.net", "https://acme.atlassian.net", ""},
		{"https://acme.atlassian.net/", "https://acme.atlassian.net", ""},
		{"https://host/jira/", "https://host/jira", ""},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", ""},
		{"http://localhost:1", "http://localhost:1", ""},
		{"http://[::1]:9", "http://[::1]:9", ""},
		{"http://acme.atlassian.net", "", "only for loopback"},
		{"ftp://x", "", "absolute https"},
		{"acme.atlassian.net", "", "absolute https"},
		{"https://user:pw@host", "", "credentials"},
		{"https://host/?a=1", "", "query"},
		{"://bad", "", "base URL"},
	}
	for _, tc := range tests {
		u, err := ParseBaseURL(tc.in)
		if tc.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errPart) {
				t.Errorf("ParseBaseURL(%q) err = %v, want containing %q", tc.in, err, tc.errPart)
			}
			if err != nil && strings.Contains(err.Error(), "pw") {
				t.Errorf("error leaks password: %v", err)
			}
			continue
		}
		if err != nil || u.String() != tc.want {
			t.Errorf("ParseBaseURL(%q) = %v, %v; want %s", tc.in, u, err, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{" 0 ", 0, true},
		{"-1", 0, false},
		{"abc", 0, false},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second, true},
		{now.Add(-10 * time.Second).Format(http.TimeFormat), 0, true},
		{"999999999", 24 * time.Hour, true},
	}
	for _, tc := range tests {
		d, ok := RetryAfter(tc.in, now)
		if d != tc.want || ok != tc.ok {
			t.Errorf("RetryAfter(%q) = %v,%v want %v,%v", tc.in, d, ok, tc.want, tc.ok)
		}
	}
}

func TestRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("credentials reached another origin")
		}
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/final", http.StatusFound)
		case "/final":
			w.Write([]byte("ok"))
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	}))
	defer srv.Close()
	c := NewClient(Options{Timeout: 2 * time.Second})
	tests := []struct {
		path    string
		wantErr string
	}{
		{"/same", ""},
		{"/away", "another origin"},
		{"/loop", "stopped after"},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		resp, err := c.Do(req)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.path, err)
				continue
			}
			resp.Body.Close()
			continue
		}
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: no error", tc.path)
			continue
		}
		if !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err %v, want %q", tc.path, err, tc.wantErr)
		}
	}
}

func TestDefaultTransport(t *testing.T) {
	tr, ok := DefaultTransport().(*http.Transport)
	if !ok || tr == http.DefaultTransport {
		t.Fatalf("default transport = %T %p, want a clone of http.DefaultTransport", tr, tr)
	}
	if tr.MaxIdleConnsPerHost != MaxIdleConnsPerHost || MaxIdleConnsPerHost < 4 || tr.Proxy == nil || tr.MaxIdleConns < MaxIdleConnsPerHost {
		t.Fatalf("default transport keeps %d idle connections per host (%d in all), proxy set %v; want %d",
			tr.MaxIdleConnsPerHost, tr.MaxIdleConns, tr.Proxy != nil, MaxIdleConnsPerHost)
	}
	if DefaultTransport() != tr {
		t.Fatal("clients without a transport do not share one connection pool")
	}
	if got := http.DefaultTransport.(*http.Transport).MaxIdleConnsPerHost; got != 0 {
		t.Fatalf("http.DefaultTransport was changed: MaxIdleConnsPerHost = %d", got)
	}
}

func TestSnippetAndLoopback(t *testing.T) {
	if got := Snippet([]byte("<html>\n  <body>login</body>\n</html>"), 20); got != "<html> <body>login…" {
		t.Errorf("Snippet = %q", got)
	}
	if IsLoopback("example.com") || !IsLoopback("127.0.0.2") || !IsLoopback("LOCALHOST") {
		t.Error("IsLoopback wrong")
	}
}

func TestSleep(t *testing.T) {
	ctx := context.Background()
	if err := Sleep(ctx, time.Millisecond); err != nil {
		t.Errorf("full wait: %v", err)
	}
	if err := Sleep(ctx, 0); err != nil {
		t.Errorf("zero wait: %v", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := Sleep(done, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("zero wait, ended ctx: %v", err)
	}
	start := time.Now()
	if err := Sleep(done, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("long wait, ended ctx: %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Error("Sleep waited although ctx had ended")
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func FuzzParseBaseURL(f *testing.F) {
	for _, s := range []string{"https://acme.atlassian.net", "http://127.0.0.1:1/x/", "http://[::1", "https://u:p@h", "http://10.0.0.1"} {
		f.Add(s)
	}
	f.Add("https://u:s3cret@api.example/%zz")
	f.Add("https://u:s3cret@[::1/")
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseBaseURL(raw)
		if err != nil {
			// Whatever precedes the last "@" may be a credential: never shown.
			i, at := strings.Index(raw, "://"), strings.LastIndex(raw, "@")
			if i < 0 || at < i+9 || strings.ContainsAny(raw[:at], "?#") {
				return
			}
			user := raw[i+3 : at]
			if !strings.Contains(raw[:i+3]+raw[at:], user) && strings.Contains(err.Error(), user) {
				t.Errorf("error %q repeats the userinfo of %q", err, raw)
			}
			return
		}
		if u.Scheme == "http" && !IsLoopback(u.Hostname()) {
			t.Errorf("accepted plain http to %q", u.Host)
		}
		if u.User != nil || u.RawQuery != "" {
			t.Errorf("accepted %q", raw)
		}
	})
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "Wed, 21 Oct 2015 07:28:00 GMT", "-5", "1e9", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := RetryAfter(v, now)
		if d < 0 || (!ok && d != 0) {
			t.Errorf("RetryAfter(%q) = %v, %v", v, d, ok)
		}
	})
}

func TestParseBaseURLErrorsHideSecrets(t *testing.T) {
	for _, raw := range []string{
		"https://u:s3cret@host/%zz",         // unparsable, with userinfo
		"u:s3cret@acme.atlassian.net",       // no scheme
		"ftp://u:s3cret@acme.atlassian.net", // wrong scheme
		"https://acme.atlassian.net/?token=s3cret",
		"https://acme.atlassian.net/#s3cret",
		"http://u:s3cret@acme.atlassian.net",
		"http://acme.atlassian.net/?s3cret",
		" https://u:s3cret@h%ost ",
		"https://u:s3cret@api.example/%zz",
		"https://u:s3cret@api example/",
		"https://u:s3cret@[::1/",
		"https://u:s3/cret@host/",
		"https://u:s3cret@host:x/",
	} {
		_, err := ParseBaseURL(raw)
		if err == nil {
			t.Errorf("ParseBaseURL(%q) accepted", raw)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseBaseURL(%q) error leaks a secret: %v", raw, err)
		}
		if !strings.Contains(err.Error(), "base URL") {
			t.Errorf("ParseBaseURL(%q) error does not say what is wrong: %v", raw, err)
		}
	}
}
