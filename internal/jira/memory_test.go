package jira

import (
	"testing"
	"time"
)

// TestMemory: what a client learned starts a new client of the same
// site: the roles while younger than CacheTTL, the 429 ceiling within
// the hour (grown back by the windows since), the account.
func TestMemory(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	clk := func() time.Time { return now }
	newClient := func() *Client {
		c, err := New(Options{BaseURL: "https://example.atlassian.net", Token: "t", RPS: 10, Burst: 20, Now: clk})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := newClient()
	a.roles["PROJ"] = roleCache{members: map[string][]string{"acct-a": {"Developers"}}, fetched: now}
	a.aimd.refused(now, 0)
	a.aimd.refused(now.Add(2*time.Second), 0) // 10 → 5 → 2.5
	m := a.Memory()
	if m.Ceiling == nil || !m.Ceiling.Learned || m.Ceiling.Rate != 2.5 {
		t.Fatalf("ceiling %+v, want 2.5 learned", m.Ceiling)
	}
	cases := []struct {
		name      string
		later     time.Duration
		wantRoles bool
		wantRate  float64
		wantBurst int
	}{
		{"at once", 0, true, 2.5, 1},
		{"ten seconds later", 10 * time.Second, true, 2.5 + 10*0.25, 1},
		{"after the role cache time", DefaultCacheTTL, false, 10, 1},
		{"two hours later", 2 * time.Hour, false, 10, 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			now = now.Add(tc.later)
			defer func() { now = now.Add(-tc.later) }()
			b := newClient()
			b.Remember(m)
			if _, ok := b.roles["PROJ"]; ok != tc.wantRoles {
				t.Fatalf("roles remembered: %v, want %v", ok, tc.wantRoles)
			}
			if r, burst := b.ceiling(); r != tc.wantRate || burst != tc.wantBurst {
				t.Fatalf("ceiling %v burst %d, want %v burst %d", r, burst, tc.wantRate, tc.wantBurst)
			}
		})
	}
	b := newClient()
	if _, ok := b.KnownMyself(); ok {
		t.Fatal("a new client knows its account")
	}
	b.SetMyself(User{AccountID: "acct-me"})
	if u, ok := b.KnownMyself(); !ok || u.AccountID != "acct-me" {
		t.Fatal("SetMyself")
	}
}

// TestMemoryIDsNotNumeric: a site's refusal of numeric issue-id
// comparisons is remembered by the next client of the site, and a memory
// without it changes nothing.
func TestMemoryIDsNotNumeric(t *testing.T) {
	newClient := func() *Client {
		c, err := New(Options{BaseURL: "https://example.atlassian.net", Token: "t"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := newClient()
	if a.IDsNotNumeric() || a.Memory().IDsNotNumeric {
		t.Fatal("a new client knows the site refuses numeric ids")
	}
	a.NoteIDsNotNumeric()
	b := newClient()
	b.Remember(a.Memory())
	if !b.IDsNotNumeric() {
		t.Fatal("the refusal was not remembered")
	}
	b.Remember(Memory{})
	if !b.IDsNotNumeric() {
		t.Fatal("a memory without the refusal erased it")
	}
}
