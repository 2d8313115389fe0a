package sandbox

import (
	"errors"
	"os/user"
	"strings"
	"testing"
)

func lookupTable(name string) (*user.User, error) {
	switch name {
	case "agent":
		return &user.User{Username: "agent", Uid: "64055", Gid: "64056"}, nil
	case "toor":
		return &user.User{Username: "toor", Uid: "0", Gid: "0"}, nil
	}
	return nil, user.UnknownUserError(name)
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Identity
		wantErr string
	}{
		{"", Identity{65534, 65534}, ""},
		{"1001:1002", Identity{1001, 1002}, ""},
		{"agent", Identity{64055, 64056}, ""},
		{"nosuch", Identity{}, "unknown user nosuch"},
		{"toor", Identity{}, "must not run as root"},
		{"0:5", Identity{}, "must not run as root"},
		{"5:0", Identity{}, "must not run as root"},
		{"1001", Identity{}, "want uid:gid for a numeric identity"},
		{"a:b", Identity{}, "want uid:gid in decimal"},
		{"1:-2", Identity{}, "want uid:gid in decimal"},
		{"4294967295:1", Identity{}, "not a valid id"},
		{"bad name", Identity{}, "want a user name or uid:gid"},
		{"-x", Identity{}, "want a user name or uid:gid"},
	} {
		got, err := Resolve(tc.in, lookupTable)
		if tc.wantErr == "" && (err != nil || got != tc.want) || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("Resolve(%q) = %v, %v; want %v, %q", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name, iso, user string
		euid            int
		sudoUID         string
		want            Mode
		wantErr         string
	}{
		{"root isolates by default", "", "", 0, "1001", ModeUser, ""},
		{"root, explicit user", "user", "agent", 0, "", ModeUser, ""},
		{"non-root cannot", "", "", 1001, "", ModeUnavailable, ""},
		{"opt-out", "none", "nosuch", 0, "", ModeNone, ""},
		{"bad isolation", "maybe", "", 0, "", "", "run.isolation: want"},
		{"bad user", "", "nosuch", 0, "", "", "run.user: user \"nosuch\""},
		{"the sudo caller", "", "agent", 0, "64055", "", "started fullsend through sudo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Decide(tc.iso, tc.user, tc.euid, func(k string) string {
				if k == "SUDO_UID" {
					return tc.sudoUID
				}
				return ""
			}, lookupTable)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || p.Mode != tc.want || (p.Mode != ModeUser) != (p.Reason != "") {
				t.Fatalf("Decide = %+v, %v; want mode %s", p, err, tc.want)
			}
			if tc.want == ModeUnavailable && !strings.Contains(p.Reason, "uid 1001") {
				t.Fatalf("reason %q does not say why", p.Reason)
			}
		})
	}
}

// FuzzCheckUser: run.user comes from harness files; no input makes the
// parser panic, and whatever it accepts as uid:gid is neither root nor
// the invalid id.
func FuzzCheckUser(f *testing.F) {
	for _, s := range []string{"", "65534:65534", "agent", "0:0", "1:", ":1", "a:b:c", "99999999999:1", "-1:2", "user.name"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, name, err := parseUser(s)
		if err != nil {
			return
		}
		if name == "" && (id.UID == 0 || id.GID == 0 || id.UID == 1<<32-1) {
			t.Fatalf("%q accepted as %v", s, id)
		}
		if name != "" && !validName(name) {
			t.Fatalf("%q accepted as name %q", s, name)
		}
		if _, err := Resolve(s, func(string) (*user.User, error) { return nil, errors.New("none") }); name != "" && err == nil {
			t.Fatalf("%q resolved without a user", s)
		}
	})
}
