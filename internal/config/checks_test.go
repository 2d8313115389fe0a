package config

import (
	"strings"
	"testing"
)

func TestCheckBaseURL(t *testing.T) {
	cases := []struct {
		raw string
		msg string // "" means valid
	}{
		{"https://acme.atlassian.net", ""},
		{"https://jira.example.com/context", ""},
		{"http://127.0.0.1:8080", ""},
		{"http://127.9.9.9", ""},
		{"http://[::1]:9000/", ""},
		{"http://localhost:1234", ""},
		{"http://LOCALHOST", ""},
		{"http://example.com", "plain http is only allowed for loopback"},
		{"http://10.0.0.1", "plain http is only allowed for loopback"},
		{"http://localhost.evil.com", "plain http is only allowed for loopback"},
		{"ftp://example.com", "scheme must be https"},
		{"example.com", "has no host"},
		{"", "empty"},
		{"https://", "has no host"},
		{"https://user:secret@example.com", "must not contain user info"},
		{"https://example.com/?q=1", "must not have a query"},
		{"https://example.com/#x", "must not have a query or fragment"},
		{"https://exa mple.com", "contains whitespace"},
		{"https://acme.atlassian.net\n", "contains whitespace or control characters (a trailing newline?)"},
		{" https://acme.atlassian.net", "contains whitespace"},
		{"https://acme.atlassian.net/%zz", "not a valid URL"},
		{"https://example.com/?access_token=secret", "must not have a query"},
		{"https://example.com/#secret", "must not have a query or fragment"},
		{"ftp://example.com/?token=secret", "must not have a query"},
	}
	for _, tc := range cases {
		err := CheckBaseURL(tc.raw)
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("CheckBaseURL(%q) = %v, want nil", tc.raw, err)
		case tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)):
			t.Errorf("CheckBaseURL(%q) = %v, want error containing %q", tc.raw, err, tc.msg)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckBaseURL(%q) leaked user info, a query or a fragment: %v", tc.raw, err)
		}
	}
}

func TestCheckRepo(t *testing.T) {
	cases := []struct {
		slug string
		ok   bool
	}{
		{"acme/platform", true},
		{"group/sub/project", true},
		{"a.b/c_d-e", true},
		{"abc", true},
		{"ab", false},
		{"acme/../x", false},
		{"acme/./x", false},
		{"acme//x", false},
		{"/acme/x", false},
		{"acme/x/", false},
		{"acme/pl atform", false},
		{"acme/plätform", false},
		{strings.Repeat("a", 513), false},
		{strings.Repeat("a", 512), true},
	}
	for _, tc := range cases {
		if err := CheckRepo(tc.slug); (err == nil) != tc.ok {
			t.Errorf("CheckRepo(%q) = %v, want ok=%v", tc.slug, err, tc.ok)
		}
	}
}
