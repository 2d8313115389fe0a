// Package sandbox owns the agent's identity: which unprivileged user and
// group the agent of `fullsend run` runs as (run.user, run.isolation), the
// drop to it (no supplementary groups, no_new_privs, no capabilities), and
// the hand-over of its workspace (the checkout, a fresh HOME and TMPDIR)
// and back. Package runner decides when; this package does it.
//
// Decide settles run.user and run.isolation against fullsend's euid;
// Starter starts the agent as that uid and gid; NewPipes gives it output
// pipes it owns. Reaper reaps what the agent leaves outside its process
// group: its cgroup and cgroup.kill where the kernel offers them, else
// the subreaper's loop, bounded by time. Hand and Lease.Return hand the
// workspace over and back with a descriptor-based walk that never chowns
// a file with several links; what concurrent runs share (the checkout's
// owner, the widened directories' modes) is kept in root-only record
// files under locks.
package sandbox

import (
	"errors"
	"fmt"
	"os/user"
	"strconv"
	"strings"
)

// Isolation values of a harness's run.isolation.
const (
	IsolationUser = "user" // the default: the agent runs under an identity of its own
	IsolationNone = "none" // the agent runs as fullsend's own user (an explicit opt-out)
)

// DefaultUser is the identity an agent gets when run.user is not set:
// uid and gid 65534, the "nobody" user and group (nogroup on Debian) that
// every common Linux distribution defines, owns no files and is never
// given sudo. Being in /etc/passwd matters: tools that look up the
// current user (git, Node's os.userInfo, Python's getpass) keep working.
const DefaultUser = "65534:65534"

// Mode is how a run's agent was started.
type Mode string

const (
	// ModeUser: the agent runs under its own identity.
	ModeUser Mode = "user"
	// ModeNone: run.isolation none; the agent runs as fullsend's user.
	ModeNone Mode = "none"
	// ModeUnavailable: isolation was wanted, but fullsend cannot switch
	// users (it is not root, or the platform has no support); the agent
	// runs as fullsend's user.
	ModeUnavailable Mode = "unavailable"
)

// Identity is the user and group the agent runs as.
type Identity struct {
	UID, GID uint32
}

func (id Identity) String() string { return fmt.Sprintf("%d:%d", id.UID, id.GID) }

// Plan is the decision for one run.
type Plan struct {
	Mode Mode
	ID   Identity // set in ModeUser
	// Reason says why the agent is not isolated (ModeNone,
	// ModeUnavailable).
	Reason string
}

// Isolated reports whether the agent is dropped to its own identity.
func (p Plan) Isolated() bool { return p.Mode == ModeUser }

// Lookup finds a user by name (os/user.Lookup); tests replace it.
type Lookup func(name string) (*user.User, error)

// CheckIsolation validates a run.isolation value ("" is the default).
func CheckIsolation(s string) error {
	switch s {
	case "", IsolationUser, IsolationNone:
		return nil
	}
	return fmt.Errorf("want %q or %q, got %q", IsolationUser, IsolationNone, s)
}

// CheckUser validates the syntax of a run.user value without looking the
// name up: "" (the default), a user name, or "uid:gid" in decimal. Root
// (uid or gid 0) is refused.
func CheckUser(s string) error {
	_, _, err := parseUser(s)
	return err
}

// parseUser splits a run.user value ("" = DefaultUser): a numeric
// identity, or (with an empty identity) a name to look up.
func parseUser(s string) (id Identity, name string, err error) {
	if s == "" {
		s = DefaultUser
	}
	u, g, colon := strings.Cut(s, ":")
	if !colon {
		if !validName(s) {
			return Identity{}, "", fmt.Errorf("want a user name or uid:gid, got %q", s)
		}
		if _, err := strconv.ParseUint(s, 10, 32); err == nil {
			return Identity{}, "", fmt.Errorf("want uid:gid for a numeric identity, got %q", s)
		}
		return Identity{}, s, nil
	}
	uid, err1 := strconv.ParseUint(u, 10, 32)
	gid, err2 := strconv.ParseUint(g, 10, 32)
	if err1 != nil || err2 != nil || len(u) > 10 || len(g) > 10 {
		return Identity{}, "", fmt.Errorf("want uid:gid in decimal, got %q", s)
	}
	id = Identity{UID: uint32(uid), GID: uint32(gid)}
	if err := notRoot(id); err != nil {
		return Identity{}, "", fmt.Errorf("%q: %w", s, err)
	}
	if id.UID == 1<<32-1 || id.GID == 1<<32-1 {
		return Identity{}, "", fmt.Errorf("%q: 4294967295 is not a valid id", s)
	}
	return id, "", nil
}

func notRoot(id Identity) error {
	if id.UID == 0 || id.GID == 0 {
		return errors.New("the agent must not run as root (uid or gid 0)")
	}
	return nil
}

// validName accepts the portable user-name characters (POSIX plus the
// '-' and '_' every system allows), 1 to 32 of them, not starting with '-'.
func validName(s string) bool {
	if s == "" || len(s) > 32 || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Resolve turns a run.user value into an identity, looking names up with
// lookup (nil: os/user.Lookup) and taking the user's primary group.
func Resolve(s string, lookup Lookup) (Identity, error) {
	id, name, err := parseUser(s)
	if err != nil || name == "" {
		return id, err
	}
	if lookup == nil {
		lookup = user.Lookup
	}
	u, err := lookup(name)
	if err != nil {
		return Identity{}, fmt.Errorf("user %q: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return Identity{}, fmt.Errorf("user %q has a non-numeric uid %q or gid %q", name, u.Uid, u.Gid)
	}
	id = Identity{UID: uint32(uid), GID: uint32(gid)}
	if err := notRoot(id); err != nil {
		return Identity{}, fmt.Errorf("user %q: %w", name, err)
	}
	return id, nil
}

// Decide plans the agent's identity from the harness's run.isolation and
// run.user and fullsend's effective uid. Only a bad run.user (unknown
// name, root, or the user who started fullsend through sudo, $SUDO_UID,
// whose processes hold the CI job's secrets) is an error; a fullsend that
// cannot switch users gets ModeUnavailable with the reason.
func Decide(isolation, runUser string, euid int, getenv func(string) string, lookup Lookup) (Plan, error) {
	if err := CheckIsolation(isolation); err != nil {
		return Plan{}, fmt.Errorf("run.isolation: %w", err)
	}
	if isolation == IsolationNone {
		return Plan{Mode: ModeNone, Reason: "run.isolation is none"}, nil
	}
	id, err := Resolve(runUser, lookup)
	if err != nil {
		return Plan{}, fmt.Errorf("run.user: %w", err)
	}
	if getenv != nil && getenv("SUDO_UID") == strconv.FormatUint(uint64(id.UID), 10) {
		return Plan{}, fmt.Errorf("run.user: %s is the user who started fullsend through sudo, whose processes hold the job's secrets; choose another", id)
	}
	if !Supported {
		return Plan{Mode: ModeUnavailable, Reason: "switching the agent's user is supported on Linux only"}, nil
	}
	if euid != 0 {
		return Plan{Mode: ModeUnavailable, Reason: fmt.Sprintf("fullsend runs as uid %d, not root, so it cannot switch the agent to %s", euid, id)}, nil
	}
	return Plan{Mode: ModeUser, ID: id}, nil
}
