package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

var (
	repoSegmentRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	agentNameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	envNameRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	workflowRE    = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,254}$`)
)

// CheckRepo validates a target repository slug (docs/events.md, `repo`):
// 3–512 characters, one or more "/"-separated segments of [A-Za-z0-9._-],
// no "." or ".." segment. Callers that take the repo from a flag call it
// after overwriting Config.Repo.
func CheckRepo(slug string) error {
	if n := len(slug); n < 3 || n > 512 {
		return fmt.Errorf("repo %q: want 3 to 512 characters, got %d", slug, n)
	}
	for _, seg := range strings.Split(slug, "/") {
		if seg == "" {
			return fmt.Errorf("repo %q: empty path segment", slug)
		}
		if seg == "." || seg == ".." {
			return fmt.Errorf("repo %q: %q segment not allowed", slug, seg)
		}
		if !repoSegmentRE.MatchString(seg) {
			return fmt.Errorf("repo %q: segment %q may only contain letters, digits, '.', '_' and '-'", slug, seg)
		}
	}
	return nil
}

// CheckBaseURL validates an API base URL: absolute, with a host, no user
// info, query or fragment, and https — plain http only for loopback hosts
// (localhost, 127.0.0.0/8, ::1). The error never repeats user info, a
// query or a fragment.
func CheckBaseURL(raw string) error {
	if raw == "" {
		return errors.New("base URL is empty")
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return errors.New("base URL contains whitespace or control characters (a trailing newline?)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("base URL is not a valid URL")
	}
	if u.User != nil {
		return errors.New("base URL must not contain user info; credentials come from environment variables")
	}
	// A query or fragment may carry a token (?access_token=…): never shown.
	bare := *u
	bare.RawQuery, bare.ForceQuery, bare.Fragment, bare.RawFragment = "", false, "", ""
	shown := bare.String()
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("base URL %q has no host", shown)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return fmt.Errorf("base URL %q must not have a query or fragment", shown)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if httpx.IsLoopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("base URL %q: plain http is only allowed for loopback hosts (localhost, 127.0.0.0/8, ::1); use https", shown)
	default:
		return fmt.Errorf("base URL %q: scheme must be https", shown)
	}
}

// CheckAgentName validates a harness name: 1–64 characters of
// [A-Za-z0-9_.-], starting with a letter or digit. Names appear in scope
// keys, concurrency groups and dispatch inputs.
func CheckAgentName(name string) error {
	if !agentNameRE.MatchString(name) {
		return fmt.Errorf("name %q: want 1 to 64 characters of letters, digits, '_', '.', '-', starting with a letter or digit", name)
	}
	return nil
}

// CheckEnvName validates an environment variable name.
func CheckEnvName(name string) error {
	if !envNameRE.MatchString(name) {
		return fmt.Errorf("%q is not a valid environment variable name", name)
	}
	return nil
}

// CheckWorkflow validates a workflow file name or numeric id: it becomes
// a URL path segment, so no "/" and no leading ".".
func CheckWorkflow(w string) error {
	if !workflowRE.MatchString(w) {
		return fmt.Errorf("workflow %q: want a file name such as fullsend-run.yml (letters, digits, '.', '_', '-')", w)
	}
	return nil
}

// checkRef validates a git ref name loosely: non-empty, no whitespace or
// control characters, no "..".
func checkRef(ref string) error {
	if ref == "" || strings.Contains(ref, "..") || strings.ContainsFunc(ref, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '~' || r == '^' || r == ':' || r == '\\' }) {
		return fmt.Errorf("ref %q is not a valid git ref name", ref)
	}
	return nil
}

func nonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("must not be empty")
	}
	return nil
}
