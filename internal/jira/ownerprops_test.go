package jira_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/sim/jirasim"
)

// TestOwnerProperties: user properties on the caller's own record and
// project properties, with the emulator's permission checks.
func TestOwnerProperties(t *testing.T) {
	ctx := context.Background()
	const me = "557058:fullsend-bot"
	cases := []struct {
		name              string
		owner             jira.Owner
		read, write       bool   // access granted
		wantRead, wantPut string // "" ok, else an error substring
		wantFound         bool
	}{
		{name: "own user record", owner: jira.Owner{Kind: jira.OwnerUser, ID: me}, read: true, write: true, wantFound: true},
		{name: "another user's record", owner: jira.Owner{Kind: jira.OwnerUser, ID: "acct-x"}, read: true, write: true, wantRead: "403", wantPut: "403"},
		{name: "user properties refused", owner: jira.Owner{Kind: jira.OwnerUser, ID: me}, wantRead: "403", wantPut: "403"},
		{name: "project admin", owner: jira.Owner{Kind: jira.OwnerProject, ID: "PROJ"}, read: true, write: true, wantFound: true},
		{name: "project without admin", owner: jira.Owner{Kind: jira.OwnerProject, ID: "PROJ"}, read: true, wantPut: "403"},
		{name: "unknown project", owner: jira.Owner{Kind: jira.OwnerProject, ID: "NOPE"}, read: true, write: true, wantRead: "404", wantPut: "404"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, c, _ := newPair(t, jirasim.Options{}, func(o *jira.Options) { o.MaxRetries = 0 })
			s.AddProject("PROJ", "Platform")
			s.AddUser(jira.User{AccountID: "acct-x"})
			s.SetPropertyAccess(tc.owner.Kind, tc.read, tc.write)
			err := c.SetOwnerProperty(ctx, tc.owner, "fullsend.poll.a.b.cursor", map[string]int{"v": 1})
			checkErr(t, "set", err, tc.wantPut)
			v, found, err := c.GetOwnerProperty(ctx, tc.owner, "fullsend.poll.a.b.cursor")
			if tc.wantRead == "404" {
				// Jira answers 404 for an unknown owner too: read as absent.
				err, tc.wantRead = nil, ""
			}
			checkErr(t, "get", err, tc.wantRead)
			if found != tc.wantFound {
				t.Fatalf("found %v, want %v", found, tc.wantFound)
			}
			if found && string(v) != `{"v":1}` {
				t.Fatalf("value %s", v)
			}
		})
	}
}

func checkErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("%s: %v", what, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("%s: error %v, want %s", what, err, want)
	}
}

func TestOwnerPropertyBadInput(t *testing.T) {
	_, c, _ := newPair(t, jirasim.Options{}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		owner jira.Owner
		key   string
		value any
		want  string
	}{
		{jira.Owner{Kind: "group", ID: "x"}, "k", 1, "unknown owner kind"},
		{jira.Owner{Kind: jira.OwnerUser}, "k", 1, "empty accountId"},
		{jira.Owner{Kind: jira.OwnerProject, ID: "not a key"}, "k", 1, "not a project key"},
		{jira.Owner{Kind: jira.OwnerUser, ID: "a"}, "", 1, "key must have"},
		{jira.Owner{Kind: jira.OwnerUser, ID: "a"}, "k", json.RawMessage(`{`), "not valid JSON"},
		{jira.Owner{Kind: jira.OwnerUser, ID: "a"}, "k", nil, "must not be empty"},
	} {
		err := c.SetOwnerProperty(ctx, tc.owner, tc.key, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetOwnerProperty(%v, %q): %v, want %q", tc.owner, tc.key, err, tc.want)
		}
	}
	if _, _, err := c.GetOwnerProperty(ctx, jira.Owner{Kind: "board", ID: "1"}, "k"); err == nil {
		t.Error("GetOwnerProperty accepted an unknown owner kind")
	}
}
