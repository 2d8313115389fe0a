package httpx

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ParseBaseURL checks raw as a "base URL" (see ParseURL).
func ParseBaseURL(raw string) (*url.URL, error) { return ParseURL("base URL", raw) }

// ParseURL checks that raw is an absolute http(s) URL without credentials,
// query or fragment, and that plain http is used only for a loopback host.
// name says where the URL came from ("GITHUB_API_URL") and starts every
// error. The returned URL has no trailing slash in its path. Errors show
// the URL without its user information, query and fragment, which may
// hold secrets, and never quote the parser's message when the input may
// hold credentials.
func ParseURL(name, raw string) (*url.URL, error) {
	shown := SafeURL(raw)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s %q: %s", name, shown, fmt.Sprintf(format, a...))
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		reason := "not a URL"
		var ue *url.Error
		if errors.As(err, &ue) && !strings.Contains(raw, "@") {
			reason += ": " + ue.Err.Error()
		}
		return nil, fail("%s", reason)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fail("scheme must be https (or http for loopback hosts); want an absolute https:// URL")
	case u.Host == "":
		return nil, fail("missing host; want an absolute https:// URL")
	case u.User != nil:
		return nil, fail("credentials in the URL are not allowed")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, fail("must not carry a query or fragment")
	case u.Scheme == "http" && !IsLoopback(u.Hostname()):
		return nil, fail("plain http is allowed only for loopback hosts; use https")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// SafeURL renders a possibly invalid URL for messages: everything up to
// the last "@" before the query (user information) becomes "…@", and a
// query or fragment becomes "?…" / "#…".
func SafeURL(raw string) string {
	s := strings.TrimSpace(raw)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i+1] + "…"
	}
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	}
	if at := strings.LastIndex(s[start:], "@"); at >= 0 {
		s = s[:start] + "…" + s[start+at:]
	}
	return s
}

// IsLoopback reports whether host (without port) is localhost or a loopback
// IP address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// SameOrigin reports whether a and b share scheme, host and port.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}
